/**
 * Names of the tables that hang off a plan or a report (the same in both dialects): the store
 * deletes and rewrites them with their parent; tests, benchmarks and the chaos runner dump or
 * empty them. One list, so that a new child table is not forgotten in one of those places.
 */

/** One row per item of a plan's lists, keyed by `plan_id`. */
export const PLAN_CHILD_TABLES = [
  "plan_days_of_week",
  "plan_resolutions",
  "plan_environments",
  "plan_scenarios",
  "plan_alerts",
  "plan_fetch_app_files",
  "plan_mobile_apps",
] as const;

/** One row per item of a scheduled report's lists, keyed by `report_id`. */
export const REPORT_CHILD_TABLES = [
  "report_plans",
  "report_recipients",
  "report_user_roles",
  "report_statuses",
  "report_alerts",
] as const;
