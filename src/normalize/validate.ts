/**
 * The wire checks of a plan and a scheduled report (seed 2.2, 2.3; API-FACTS.md), by hand: the
 * hot path of a sync runs them on every new or changed record, where zod cost more than the
 * rest of the reading. They accept exactly what the zod schemas of wire/schemas.ts accept
 * (test/unit/validate.test.ts holds them together), but for items nested deeper than
 * MAX_DEPTH, which zod would accept and the store could not serialize. Every enum is open
 * (plain strings); unknown fields are allowed; optional fields take null as well as absence.
 */
import { truncate } from "./text.js";

/** Problems named in a reason; the rest are counted. */
const MAX_ISSUES = 5;
/** Nesting allowed inside the items kept as JSON text (plan alerts, fetch_app_files). */
export const MAX_DEPTH = 64;
const PREVIEW = 40;

type Obj = Record<string, unknown>;

/** Collects problems as "path: what" lines, naming at most MAX_ISSUES. */
class Issues {
  readonly lines: string[] = [];
  count = 0;

  add(path: string, what: string): void {
    this.count++;
    if (this.lines.length < MAX_ISSUES) this.lines.push(`${path || "(record)"}: ${what}`);
  }

  /** The one-line reason, or null when there was no problem. */
  reason(): string | null {
    if (this.count === 0) return null;
    const more = this.count > MAX_ISSUES ? ` (+${this.count - MAX_ISSUES} more)` : "";
    return this.lines.join("; ") + more;
  }
}

/** A short, exact description of a value for a reason: never a rounded number. */
export function preview(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string": {
      const s = JSON.stringify(truncate(v, PREVIEW));
      return v.length > PREVIEW ? `${s.slice(0, -1)}..." (${v.length} characters)` : s;
    }
    case "number":
      return Number.isSafeInteger(v) || !Number.isInteger(v) ? String(v) : "a number beyond 2^53";
    case "object":
      return "an object";
    default:
      return String(v);
  }
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function want(issues: Issues, path: string, expected: string, v: unknown): void {
  const what =
    typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)
      ? "an integer beyond 2^53 cannot be read exactly"
      : `expected ${expected}, got ${preview(v)}`;
  issues.add(path, what);
}

function int(issues: Issues, o: Obj, key: string, path: string, required = false): void {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) issues.add(join(path, key), v === null ? "expected an integer, got null" : "missing");
    return;
  }
  if (!Number.isSafeInteger(v)) want(issues, join(path, key), "an integer", v);
}

function str(issues: Issues, o: Obj, key: string, path: string): void {
  const v = o[key];
  if (v !== undefined && v !== null && typeof v !== "string") want(issues, join(path, key), "a string", v);
}

function bool(issues: Issues, o: Obj, key: string, path: string): void {
  const v = o[key];
  if (v !== undefined && v !== null && typeof v !== "boolean") want(issues, join(path, key), "a boolean", v);
}

/** An optional array; `item` checks each element. Returns the array, or null. */
function list(issues: Issues, o: Obj, key: string, path: string): unknown[] | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    want(issues, join(path, key), "an array", v);
    return null;
  }
  return v;
}

function intList(issues: Issues, o: Obj, key: string, path: string): void {
  const a = list(issues, o, key, path);
  if (a)
    for (let i = 0; i < a.length; i++)
      if (!Number.isSafeInteger(a[i])) want(issues, `${join(path, key)}.${i}`, "an integer", a[i]);
}

function strList(issues: Issues, o: Obj, key: string, path: string): void {
  const a = list(issues, o, key, path);
  if (a)
    for (let i = 0; i < a.length; i++)
      if (typeof a[i] !== "string") want(issues, `${join(path, key)}.${i}`, "a string", a[i]);
}

/** An optional object; returns it, or null. */
function obj(issues: Issues, o: Obj, key: string, path: string): Obj | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (!isObj(v)) {
    want(issues, join(path, key), "an object", v);
    return null;
  }
  return v;
}

/** Items kept as JSON text: anything, nested at most MAX_DEPTH deep (checked without recursion). */
function jsonItems(issues: Issues, o: Obj, key: string, path: string): void {
  const a = list(issues, o, key, path);
  if (!a) return;
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== "object" || a[i] === null) continue;
    if (depthExceeds(a[i], MAX_DEPTH))
      issues.add(`${join(path, key)}.${i}`, `nested more than ${MAX_DEPTH} levels deep`);
  }
}

/** Whether a JSON value nests deeper than `max` (objects and arrays count one level each). */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

function mobileApp(issues: Issues, o: Obj, key: string): void {
  const app = obj(issues, o, key, "");
  if (!app) return;
  int(issues, app, "id", key, true);
  for (const k of [
    "mobile_app_name",
    "mobile_app_hash",
    "operating_system",
    "mobile_app_metadata",
    "created_at",
  ])
    str(issues, app, k, key);
}

/** Null when `v` is a valid wire plan (then it is one), else the reason. */
export function checkPlan(v: unknown): string | null {
  const issues = new Issues();
  if (!isObj(v)) {
    want(issues, "", "an object", v);
    return issues.reason();
  }
  int(issues, v, "id", "", true);
  int(issues, v, "company_id", "", true);
  for (const k of ["project_id", "plan_parallel_test_limit", "failed_test_retry_count"])
    int(issues, v, k, "");
  for (const k of ["plan_name", "description", "screen_shot_type"]) str(issues, v, k, "");
  for (const k of [
    "group_plan",
    "enabled",
    "alerts_enabled",
    "video_enabled",
    "performance_data_enabled",
    "clear_app_data",
  ])
    bool(issues, v, k, "");
  intList(issues, v, "scenarios", "");
  const period = obj(issues, v, "period", "");
  if (period) {
    for (const k of ["start_date", "end_date", "once_date", "repeat_period"])
      int(issues, period, k, "period");
    str(issues, period, "period_type", "period");
    str(issues, period, "days_of_week", "period");
  }
  jsonItems(issues, v, "alerts", "");
  jsonItems(issues, v, "fetch_app_files", "");
  const envs = list(issues, v, "environments", "");
  if (envs)
    for (let i = 0; i < envs.length; i++) {
      const env = envs[i];
      if (isObj(env)) int(issues, env, "id", `environments.${i}`, true);
      else want(issues, `environments.${i}`, "an object", env);
    }
  const resolutions = obj(issues, v, "resolutions", "");
  if (resolutions)
    for (const [os, r] of Object.entries(resolutions))
      if (typeof r !== "string") want(issues, `resolutions.${os}`, "a string", r);
  mobileApp(issues, v, "selected_android_mobile_app");
  mobileApp(issues, v, "selected_ios_mobile_app");
  return issues.reason();
}

/** Null when `v` is a valid wire scheduled report (then it is one), else the reason. */
export function checkReport(v: unknown): string | null {
  const issues = new Issues();
  if (!isObj(v)) {
    want(issues, "", "an object", v);
    return issues.reason();
  }
  int(issues, v, "id", "", true);
  for (const k of [
    "report_name",
    "content_mail",
    "frequency",
    "created_user",
    "report_hour",
    "start_date",
    "end_date",
  ])
    str(issues, v, k, "");
  bool(issues, v, "enabled", "");
  bool(issues, v, "usage_gauge", "");
  strList(issues, v, "user_roles", "");
  strList(issues, v, "status", "");
  strList(issues, v, "email_list", "");
  intList(issues, v, "plan_id_list", "");
  const alerts = list(issues, v, "alerts", "");
  if (alerts)
    for (let i = 0; i < alerts.length; i++) {
      const a = alerts[i];
      const path = `alerts.${i}`;
      if (!isObj(a)) {
        want(issues, path, "an object", a);
        continue;
      }
      for (const k of ["alert_type", "alert_sending_status", "target"]) str(issues, a, k, path);
      bool(issues, a, "enabled", path);
      bool(issues, a, "unsubscribe_link_eliminated", path);
    }
  return issues.reason();
}
