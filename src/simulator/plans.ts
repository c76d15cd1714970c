/**
 * Deterministic plan objects (seed 2.3 + API-FACTS). Shapes follow what the real service
 * returns, including its awkward parts: absent period dates, repeated environment ids, a
 * resolution that does not parse, mobile plans sharing app records, empty descriptions.
 * Undefined values mark absent keys; JSON.stringify omits them.
 */
import type { CompanyLayout } from "./layout.js";
import type { MobileAppPool, SimMobileApp } from "./mobile-apps.js";
import type { Rng } from "./prng.js";

export type PlanObject = Record<string, unknown>;

export interface PlanGenContext {
  rng: Rng;
  layout: CompanyLayout;
  apps: MobileAppPool;
}

const NAMES = [
  "Smoke",
  "Regression",
  "Checkout flow",
  "Gece Çalışması",
  "Régression nocturne",
  "夜間回帰テスト",
  "Partner's API",
  "Ödeme Akışı",
] as const;
const DESCRIPTIONS = [
  "",
  "",
  "Nightly run",
  "Müşteri kabul testleri",
  "Runs before each release",
  "Tests d'intégration",
];
const OS_KEYS = ["WIN8", "WIN10", "LINUX", "WIN8_1", "XP", "MAC", "VISTA"] as const;
const RESOLUTIONS = ["1920x1080", "1366x768", "1280x1024", "1024x768", "1440x900", "2560x1440"] as const;
const PERIOD_TYPES = ["MANUAL", "ONCE", "REPETITIVE"] as const;
const DAYS = ["2,3,4,5,6", "2,3,4,5,6,7,1", "", "1,7", "2,4,6"] as const;
const SCREENSHOTS = ["YES", "NO", "ONLY_FAILURE"] as const;
const FETCH_FILES = ["testdata.zip", "fixtures.json", "photo.jpg"] as const;
// 2017-09-30T21:30:00Z, the documented example date; plans span the following ~7.5 years.
const EPOCH_START_MS = 1_506_807_000_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Plan index i is mobile when i % 3 === 2: a third of the plans, independent of the seed. */
function isMobileIndex(i: number): boolean {
  return i % 3 === 2;
}

function period(rng: Rng): PlanObject {
  const type = rng.pick(PERIOD_TYPES);
  const start = EPOCH_START_MS + rng.int(0, 4_000_000) * MINUTE_MS;
  const repetitive = type === "REPETITIVE";
  return {
    period_type: type,
    start_date: repetitive || rng.chance(0.4) ? start : undefined,
    end_date: repetitive && rng.chance(0.7) ? start + rng.int(1, 365) * DAY_MS : undefined,
    once_date: type === "ONCE" ? start + rng.int(0, 30) * DAY_MS : undefined,
    days_of_week: repetitive ? rng.pick(DAYS) : rng.pick(["", "", "2,3,4,5,6"]),
    repeat_period: repetitive ? rng.pick([15, 30, 60, 120, 1440]) : 0,
  };
}

function alerts(rng: Rng): PlanObject[] {
  if (rng.chance(0.5)) return [];
  return Array.from({ length: rng.int(1, 2) }, () => ({
    alert_type: "EMAIL",
    alert_sending_status: rng.pick(["EVERY_TEST", "ONLY_FAILURE"]),
    target: rng.pick(["qa-team@example.com", "release@example.com"]),
    enabled: rng.chance(0.8),
  }));
}

function environments(rng: Rng, i: number): PlanObject[] {
  // One documented plan lists {"id":7} sixteen times; keep exactly that case in every company.
  if (i === 0) return Array.from({ length: 16 }, () => ({ id: 7 }));
  return Array.from({ length: rng.int(1, 4) }, () => ({ id: rng.int(1, 24) }));
}

function resolutions(rng: Rng, i: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of rng.subset(OS_KEYS, rng.int(1, 4))) out[key] = rng.pick(RESOLUTIONS);
  // A value that is not <width>x<height>; plan index 3 guarantees one per company.
  const keys = Object.keys(out);
  if ((i === 3 || rng.chance(0.01)) && keys[0] !== undefined) out[keys[0]] = "auto";
  return out;
}

/** Skewed pick: early pool entries are used far more often, like a favourite app. */
function favourite(rng: Rng, pool: readonly SimMobileApp[]): SimMobileApp {
  const app = pool[Math.floor(rng.next() ** 2 * pool.length)];
  if (!app) throw new Error("empty app pool");
  return app;
}

function mobileFields(ctx: PlanGenContext, i: number): PlanObject {
  const { rng, apps } = ctx;
  const firstMobile = i === 2;
  const mode = rng.next();
  // The first mobile plan always carries the app whose metadata does not parse.
  const android = firstMobile ? apps.broken : mode < 0.75 ? favourite(rng, apps.android) : undefined;
  const ios = mode >= 0.5 ? favourite(rng, apps.ios) : undefined;
  return {
    clear_app_data: rng.chance(0.5),
    fetch_app_files: Array.from({ length: rng.int(0, 2) }, () => ({
      id: rng.int(1, 500),
      file_name: rng.pick(FETCH_FILES),
      target_path: "/sdcard/Download",
    })),
    selected_android_mobile_app: android,
    selected_ios_mobile_app: ios,
  };
}

/** Plan number i (0-based) of the context's company. */
export function generatePlan(ctx: PlanGenContext, i: number): PlanObject {
  const { rng, layout } = ctx;
  const planAlerts = alerts(rng);
  const plan: PlanObject = {
    id: layout.firstPlanId + i,
    project_id: rng.pick(layout.projectIds),
    company_id: layout.id,
    plan_name: `${rng.pick(NAMES)} ${i + 1}`,
    group_plan: rng.chance(0.1),
    description: rng.pick(DESCRIPTIONS),
    enabled: rng.chance(0.85),
    plan_parallel_test_limit: rng.int(1, 10),
    scenarios: rng.chance(0.12) ? [] : Array.from({ length: rng.int(1, 8) }, () => rng.int(10_000, 99_999)),
    period: period(rng),
    alerts: planAlerts,
    alerts_enabled: planAlerts.length > 0 && rng.chance(0.8),
    failed_test_retry_count: rng.int(0, 3),
    screen_shot_type: rng.pick(SCREENSHOTS),
    video_enabled: rng.chance(0.3),
    environments: environments(rng, i),
    performance_data_enabled: rng.chance(0.2),
  };
  if (isMobileIndex(i)) Object.assign(plan, mobileFields(ctx, i));
  else plan.resolutions = resolutions(rng, i);
  return plan;
}
