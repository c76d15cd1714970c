/**
 * Drift: the service changing its schema without notice, as a real one does (pure, seeded).
 * A company's plans change in three ways a reader still accepts: a new field (`labels`), a new
 * enum value (`screen_shot_type` "ON_FAILURE_ONLY") and a type change (the ANDROID metadata's
 * `versionCode` turns from a number into a numeric string); and in one it refuses: a documented
 * field of another type (`plan_parallel_test_limit` as a numeric string, on every tenth plan from
 * the second). Plans it does not change keep their bytes, so the mirror sees them unchanged.
 */
import type { JsonList } from "./json-list.js";
import { deriveSeed, Rng } from "./prng.js";

const DRIFT_LABELS = ["nightly"];
export const DRIFT_SCREENSHOT = "ON_FAILURE_ONLY";
const DRIFT_STREAM = 0xd71f;
const LABELS_RATE = 0.3;
const SCREENSHOT_RATE = 0.2;
/** Every PARALLEL_EVERY-th plan, from the second, sends its plan_parallel_test_limit as a string (no die: the others' dice stay). */
const PARALLEL_EVERY = 10;

/** How many plans each change touched. */
export interface DriftSummary {
  labels: number;
  screenShotType: number;
  versionCode: number;
  /** Plans whose plan_parallel_test_limit became a numeric string (the reader refuses them). */
  parallelLimit: number;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The app record with its metadata's numeric versionCode as a string; null when there is none to turn. */
function stringVersionCode(app: unknown): Obj | null {
  if (!isObject(app) || typeof app.mobile_app_metadata !== "string") return null;
  let meta: unknown;
  try {
    meta = JSON.parse(app.mobile_app_metadata);
  } catch {
    return null; // metadata that does not parse stays as it is (the service sends such too)
  }
  if (!isObject(meta) || typeof meta.versionCode !== "number") return null;
  return { ...app, mobile_app_metadata: JSON.stringify({ ...meta, versionCode: String(meta.versionCode) }) };
}

/**
 * Drifts one company's plans in place. The first plan always gets the new field and the new
 * value, so every company with plans shows both; the others get them by the seeded dice. Every
 * ANDROID app's versionCode turns into a string (on the mobile plans, every third one).
 */
export function driftPlans(plans: JsonList, seed: number, companyIndex: number): DriftSummary {
  const rng = new Rng(deriveSeed(seed, DRIFT_STREAM + companyIndex));
  const summary: DriftSummary = { labels: 0, screenShotType: 0, versionCode: 0, parallelLimit: 0 };
  let first = true;
  let index = -1;
  for (const id of plans.ids()) {
    index++;
    const text = plans.get(id);
    let plan: unknown;
    try {
      plan = JSON.parse(text ?? "");
    } catch {
      continue; // odd JSON stored through the admin endpoints is left alone
    }
    if (!isObject(plan)) continue;
    // Both dice are rolled for every plan, so one plan's change never shifts another's.
    const labels = rng.chance(LABELS_RATE) || first;
    const screenshot = rng.chance(SCREENSHOT_RATE) || first;
    first = false;
    let changed = false;
    if (labels) {
      plan.labels = [...DRIFT_LABELS];
      summary.labels++;
      changed = true;
    }
    if (screenshot) {
      plan.screen_shot_type = DRIFT_SCREENSHOT;
      summary.screenShotType++;
      changed = true;
    }
    const android = stringVersionCode(plan.selected_android_mobile_app);
    if (android) {
      plan.selected_android_mobile_app = android;
      summary.versionCode++;
      changed = true;
    }
    if (index % PARALLEL_EVERY === 1 && typeof plan.plan_parallel_test_limit === "number") {
      plan.plan_parallel_test_limit = String(plan.plan_parallel_test_limit);
      summary.parallelLimit++;
      changed = true;
    }
    if (changed) plans.set(id, JSON.stringify(plan));
  }
  return summary;
}
