/**
 * What the mirror's tables hold: plans, scheduled reports, their child tables and their history
 * (the words of the table reference; see ./descriptions.ts).
 */
import type { TableDoc } from "./table-doc.js";

const PLAN = "Plan (`plans.id`).";
const REPORT = "Report (`scheduled_reports.id`).";

/** The children of a plan or report that hold one JSON item of a list each. */
const jsonItems = (list: string, owner: string): TableDoc => ({
  summary: `One row per item of the ${owner}'s \`${list}\` list. The item's fields are not documented by the service, so each is kept as JSON: read it with \`json_extract\` (SQLite) or \`json::jsonb\` (PostgreSQL).`,
  columns: {
    plan_id: PLAN,
    position: `0-based position in \`${list}\`.`,
    json: "The item as JSON text.",
  },
});

const versions = (what: "plan" | "report"): TableDoc => ({
  summary: `Every content a ${what} ever had, with its validity interval.`,
  columns: {
    version_id: "Generated row id.",
    id: `The ${what}'s id.`,
    content_hash: "SHA-256 of `raw_json`.",
    valid_from: "Start of the run that first received this content.",
    valid_to:
      "Start of the run that received a different content or found the record deleted; **NULL for the current version**.",
    raw_json:
      "The content as received, once the record's row holds a newer one; **NULL while the content is the row's own** (the text is stored once). `v_plan_versions` / `v_report_versions` give every version's text.",
    run_id: "`sync_runs.id` of the run that opened the version.",
  },
  notes:
    what === "plan"
      ? `- A new version opens when a record is first seen, when its content changes, and when a deleted record comes back (even with the same content).
- Deletion closes the current version without opening one: a deleted record has no version valid while it was deleted.
- The content valid at time \`T\` is the version with \`valid_from <= T AND (valid_to IS NULL OR valid_to > T)\`.
- Times are those of the syncs: a change on the service happened between the previous run and \`valid_from\`.
- A record rejected by validation keeps its previous version.`
      : "The same rules as `plan_versions`.",
});

export const MIRROR_TABLE_DOCS: Record<string, TableDoc> = {
  plans: {
    summary:
      "One row per plan ever seen. Child tables (`plan_*`) hold its current lists; `plan_versions` its history.",
    columns: {
      id: "Plan id.",
      company_id: "Company: always the configured company it was synced for.",
      project_id: "Project.",
      plan_name: "Name.",
      group_plan: "Group plan.",
      description: "Description (may be empty).",
      enabled: "Enabled.",
      plan_parallel_test_limit: "Maximum parallel tests.",
      alerts_enabled: "Alerts enabled.",
      failed_test_retry_count: "Retries for failed tests.",
      screen_shot_type: "As received (`YES`, `NO`, `ONLY_FAILURE`, …).",
      video_enabled: "Video recording.",
      performance_data_enabled: "Performance data.",
      clear_app_data: "Mobile plans only.",
      platform:
        "`mobile` if the plan carries a selected Android or iOS app, `clear_app_data` or `fetch_app_files`; else `desktop`.",
      period_type: "As received (`MANUAL`, `ONCE`, `REPETITIVE`, …).",
      period_start_at: "`period.start_date` (epoch ms on the wire); NULL when absent.",
      period_end_at: "`period.end_date`; NULL when absent.",
      period_once_at: "`period.once_date`; NULL when absent.",
      period_repeat_minutes: "`period.repeat_period`, in minutes.",
      period_days_of_week:
        "`period.days_of_week` as received, e.g. `2,3,4,5,6`; parsed into `plan_days_of_week`.",
      raw_json: "The record as received.",
      content_hash: "SHA-256 of `raw_json`.",
      first_seen_at: "Start of the run that first inserted it.",
      seen_at:
        "The last sighting written on the row: the run that inserted it, changed it, brought it back, or deleted it (then: the last list that had it). A run that finds a plan unchanged does not write its row: **for when a plan was last seen, read `v_plans.last_seen_at`**.",
      deleted_at:
        "Start of the run whose complete list no longer had it; NULL while live; cleared when it comes back.",
    },
    notes:
      "A sync that finds nothing new writes no plan row (and no child row), even when the list holds elements it rejects: `sync_state.plans_seen_at` says for every live plan of the company that it was in the newest list applied, except the few in `unlisted_plans` (missing from a list whose deletions were held back). `v_plans` puts them together.",
  },
  plan_days_of_week: {
    summary: "One row per distinct valid day of a plan's `days_of_week`.",
    columns: {
      plan_id: PLAN,
      day_number: "Java Calendar day: 1 = Sunday, 2 = Monday … 7 = Saturday.",
      day_name: "`SUNDAY` … `SATURDAY`.",
    },
    notes: "Tokens that are not 1–7 are ignored; an empty `days_of_week` gives no rows.",
  },
  plan_resolutions: {
    summary: "One row per entry of a plan's `resolutions` map.",
    columns: {
      plan_id: PLAN,
      os: "Key of the map (`WIN10`, `LINUX`, `MAC`, …).",
      resolution: "Value as received, e.g. `1024x768`.",
      width: "Parsed width; NULL if the value is not `<width>x<height>`.",
      height: "Parsed height; NULL likewise.",
    },
  },
  plan_environments: {
    summary: "One row per distinct environment id of a plan.",
    columns: {
      plan_id: PLAN,
      environment_id: "Environment id.",
      occurrences: "How many times the id appears in the plan's `environments` (the service repeats ids).",
    },
  },
  plan_scenarios: {
    summary: "One row per entry of a plan's `scenarios` list.",
    columns: {
      plan_id: PLAN,
      scenario_id: "Scenario id (indexed).",
      position: "0-based position in the list; repeats are kept.",
    },
  },
  plan_alerts: jsonItems("alerts", "plan"),
  plan_fetch_app_files: jsonItems("fetch_app_files", "plan"),
  mobile_apps: {
    summary:
      "One row per mobile app id. An app is shared by plans (and companies) and written by each sync that inserts or changes a plan carrying it (the first such plan of the run gives the row) and by each replay, so the row holds the latest run's content. Rows are never deleted.",
    columns: {
      id: "App id.",
      operating_system: "As received (`ANDROID`, `IOS`).",
      mobile_app_name: "File name.",
      mobile_app_hash: "Hash of the app file.",
      created_at:
        "From `YYYY-MM-DD HH:MM:SS`, **taken as UTC**; NULL if it has another shape or names an impossible date.",
      metadata_json: "`mobile_app_metadata` exactly as received (kept even when it does not parse).",
      metadata_error:
        "Why the metadata could not be read (`invalid JSON: …`); NULL when it parsed or was absent. Bad metadata never fails the plan or the sync.",
      metadata_repaired:
        "True when the metadata parsed only after a repair: the service's documented examples escape an apostrophe inside a string as `\\'`, which JSON does not allow, and that one escape is read as `'` (nothing else is repaired: any other invalid escape, or `\\'` outside a string, leaves the metadata unparsed with its `metadata_error`). The columns below then hold the values read; `metadata_json` keeps the text as received. False when the metadata parsed as received, did not parse, or is absent; NULL for rows written before this column existed, until `tas-sync replay` reads them again.",
      app_id: "ANDROID `packageName`; IOS `bundleName`.",
      display_name: "ANDROID `label`; IOS `bundleDisplayName`.",
      version_name: "ANDROID `versionName`; IOS `bundleVersion`.",
      version_code: "ANDROID `versionCode` (a number or a numeric string); NULL for IOS.",
      min_os_version: "ANDROID `minSdkVersion`; IOS `bundleMinOsVersion`.",
      target_sdk_version: "ANDROID `targetSdkVersion`; NULL for IOS.",
    },
    notes:
      "For any other `operating_system`, whichever key set the document uses is read, Android keys first.",
  },
  plan_mobile_apps: {
    summary: "The apps a plan selects, one row per slot.",
    columns: {
      plan_id: PLAN,
      operating_system:
        "Slot: `ANDROID` for `selected_android_mobile_app`, `IOS` for `selected_ios_mobile_app`.",
      mobile_app_id: "`mobile_apps.id`.",
    },
  },
  scheduled_reports: {
    summary:
      "One row per configured report ever fetched. A report id removed from the config is no longer fetched: its row stays as it was.",
    columns: {
      id: "Report id.",
      company_id: "The company it was fetched for (the record does not carry one).",
      report_name: "Name.",
      content_mail: "E-mail body (HTML).",
      enabled: "Enabled.",
      frequency: "As received (`DAILY`, `WEEKLY`, …).",
      created_user: "Creator's name.",
      usage_gauge: "Usage gauge.",
      report_hour: "Scheduled time, ISO 8601 UTC (kept as received when it is not a valid date-time).",
      start_date: "Start of validity, likewise.",
      end_date: "End of validity, likewise.",
      raw_json: "Response body as received.",
      content_hash: "SHA-256 of `raw_json`.",
      first_seen_at: "Start of the run that first stored it.",
      last_seen_at: "Start of the latest run that fetched it.",
      deleted_at: "Start of the run in which it answered 404 `NOT_FOUND`; NULL while live.",
    },
  },
  report_plans: {
    summary:
      "One row per distinct plan id of a report's `plan_id_list`. The link is kept even when no such plan is known: see `v_report_plan_coverage`.",
    columns: { report_id: REPORT, plan_id: "Plan id as listed (indexed)." },
  },
  report_recipients: {
    summary: "One row per distinct address of a report's `email_list`.",
    columns: { report_id: REPORT, email: "Address." },
  },
  report_user_roles: {
    summary: "One row per distinct role of a report's `user_roles`.",
    columns: { report_id: REPORT, role: "Role (`ROLE_ADMIN`, …)." },
  },
  report_statuses: {
    summary: "One row per distinct value of a report's `status` list.",
    columns: { report_id: REPORT, status: "Status (`SUCCESS`, …)." },
  },
  report_alerts: {
    summary: "One row per item of a report's `alerts`.",
    columns: {
      report_id: REPORT,
      position: "0-based position in `alerts`.",
      alert_type: "E.g. `EMAIL`.",
      alert_sending_status: "E.g. `EVERY_TEST`.",
      target: "Address that receives the alert.",
      enabled: "Enabled.",
      unsubscribe_link_eliminated: "Unsubscribe link removed.",
    },
  },
  plan_versions: versions("plan"),
  report_versions: versions("report"),
};
