/** Names of the row fields, and how to name a value's type in a problem. */

/** Fields that steer the push and are not sent: the idempotency key, the company, the parent row. */
export const STEERING_FIELDS = ["key", "company_id", "parent_key"] as const;

/** Neutral names (seed section 4.1) accepted for the wire names. */
export const ALIASES = [
  ["test_management_enabled", "testrail_enabled"],
  ["issue_tracker_enabled", "jira_enabled"],
  ["test_execution_plugin_enabled", "xray_enabled"],
] as const;

/** Fields a CSV cell is coerced to an integer for. */
export const INTEGER_FIELDS: ReadonlySet<string> = new Set([
  "project_id",
  "company_id",
  "max_execution_time",
]);

/** Fields a CSV cell is coerced to a boolean for (wire names and aliases). */
export const BOOLEAN_FIELDS: ReadonlySet<string> = new Set(ALIASES.flat());

/** JSON-ish type of a value, with the value itself for scalars where it helps ("number 12.5"). */
export function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
  if (typeof v === "boolean") return `boolean ${v}`;
  return typeof v;
}

/** Longest excerpt of file text a problem quotes: a 10 MB cell must not make a 10 MB message. */
const EXCERPT = 60;

/** `s` cut to a readable excerpt ("abc…" when longer). */
export function clip(s: string): string {
  return s.length > EXCERPT ? `${s.slice(0, EXCERPT)}…` : s;
}

/** `s` as a JSON string literal, cut to an excerpt first. */
export function quoted(s: string): string {
  return JSON.stringify(clip(s));
}
