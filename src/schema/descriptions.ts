/**
 * What each table, view and column of the mirror holds, for the table reference
 * (docs/reference/tables.md, written by `npm run docs` with the types read from the drizzle
 * schemas). Kept apart from the table files so that a schema change and its words can be made
 * by different hands; a unit test fails when a table or column of either schema has no words
 * here, or words name a table or column that no longer exists. Tables are listed in this order.
 */
export interface TableDoc {
  /** One paragraph: what one row is. */
  summary: string;
  columns: Record<string, string>;
  /** Markdown after the column table: rules a reader of the rows needs. */
  notes?: string;
}

const PLAN = "Plan (`plans.id`).";
const REPORT = "Report (`scheduled_reports.id`).";
const RUN = "`sync_runs.id` of the run that wrote it.";

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
    raw_json: "The content as received.",
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

export const TABLE_DOCS: Record<string, TableDoc> = {
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
      last_seen_at: "Start of the latest run that received it.",
      deleted_at:
        "Start of the run whose complete list no longer had it; NULL while live; cleared when it comes back.",
    },
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
      "One row per mobile app id. An app is shared by plans (and companies) and written whenever a plan carrying it is inserted or changed, so the row holds the latest content seen. Rows are never deleted.",
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
  sync_runs: {
    summary: "One row per company sync.",
    columns: {
      id: "Run id.",
      company_id: "Company.",
      trigger: "`cli` (`sync`, `demo`), `schedule` (daemon) or `bench`.",
      started_at: "Start; written in its own small transaction, so a running sync is visible.",
      finished_at: "End; NULL while running.",
      status:
        "`running`, `succeeded`, `partial`, `failed`, `superseded` or `cancelled` (see docs/sync.md). A run of a process that died is marked `failed` by the next command that writes.",
      fetched: "Records received: plans in the list plus reports answered.",
      inserted: "New plans and reports.",
      updated: "Plans and reports with new content, or back after deletion.",
      unchanged: "Same content as stored.",
      deleted: "Plans missing from a complete list, plus reports that answered 404.",
      rejected: "Records written to `rejected_records`.",
      error:
        "The run's problems joined with `; ` (plan list failure, report errors, deletions held back, why it was superseded, cancelled or abandoned); NULL if none.",
      owner_host: "Host name of the process that ran it.",
      owner_pid: "Its process id.",
      heartbeat_at:
        "When the process last said it was alive: at the start, then every sixth of `sync.lease` while the run lasts.",
    },
    notes:
      "When the plan list fails, the plan counts are 0: nothing of the list was written. A `cancelled` run has all counts 0.",
  },
  sync_state: {
    summary:
      "One row per company: who may sync it now, the newest snapshot applied, and what was last alerted. Daemons and commands coordinate through it: read it, do not write it.",
    columns: {
      company_id: "Company.",
      lease_token: "The current sync's claim on the company (a random token); NULL when free.",
      lease_host: "Host of the process holding the lease.",
      lease_pid: "Its process id.",
      lease_expires_at: "When the lease lapses unless renewed.",
      applied_started_at:
        "`started_at` of the newest run whose snapshot was applied; a snapshot of a run that started earlier is discarded (`superseded`).",
      applied_run_id: "That run's id.",
      alert_state:
        "What the daemons last alerted: `ok`, `failing`, `stale` or `failing+stale`; NULL before the first change.",
      alert_changed_at: "When it was set.",
    },
  },
  rejected_records: {
    summary: "Records that failed validation. Nothing else was written for them.",
    columns: {
      id: "Generated row id.",
      run_id: RUN,
      entity: "`plan` or `scheduled_report`.",
      entity_id:
        "The plan's id if it had a usable one, else NULL (a NULL plan id holds back that run's deletions); for a report, its id.",
      reason:
        "One line: `invalid JSON: …`, up to five schema issues `path: message`, `plan id X appears twice in the response`, …",
      raw_json: "The record's text as received.",
    },
  },
  sync_errors: {
    summary:
      "Fetches that failed, and run-level problems (not validation failures: those are `rejected_records`).",
    columns: {
      id: "Generated row id.",
      run_id: RUN,
      entity: "`plans` (the list, or a failure of the whole company) or `scheduled_report`.",
      entity_id: "Report id; NULL for `plans`.",
      code: "Symbolic name: the service's (`ACCESS_DENIED`, `INVALID_CLIENT`, …) or ours (`TIMEOUT`, `CONNECTION_FAILED`, `RESPONSE_TOO_LARGE`, `COMPANY_MISMATCH`, `DELETIONS_HELD_BACK`, …).",
      http_status: "HTTP status; NULL for transport errors and run-level problems.",
      message:
        "Operation, status, the server's words and where (host and port, token URL, user): never a secret.",
    },
  },
  scenario_requests: {
    summary: "The push outbox: one row per seed-file row, keyed by its idempotency key.",
    columns: {
      key: "The row's `key`, or `<project_id>/<scenario_name>`.",
      company_id: "Company (`current-company-id`).",
      project_id: "Project.",
      scenario_name: "Name.",
      payload_json:
        "The request body as first recorded: wire names, aliases mapped, an inline `parent` included. A `parent_key` parent object is added when the request is sent.",
      parent_key: "Key of the parent row, or NULL.",
      status: "`pending`, `queued`, `created`, `exists`, `failed` or `blocked` (see docs/push.md).",
      attempts: "Create requests sent (counted before sending).",
      last_error: "Last error message (for `exists`: why it counts as existing; for `blocked`: what to run).",
      error_code: "Reason code (see docs/push.md); NULL when created or existing.",
      scenario_id: "Id of the scenario on the service: set for `created`, and for `exists` once learned.",
      scenario_id_source:
        "Where `scenario_id` came from: `answer` (the create's answer), `user` (`set-parent-id`) or `inline-parent`; NULL while unknown.",
      in_flight: "An attempt was sent and its answer is not recorded yet (write-ahead).",
      uncertain: "An earlier attempt may have reached the service: a name clash then means `exists`.",
      batch_id: "UUID of the `push` run that last recorded the row.",
      source_file: "Absolute path of the seed file.",
      source_line: "Line in that file.",
      created_at: "First recorded.",
      updated_at: "Last change.",
    },
  },
  scenarios: {
    summary: "Every scenario the service created for us, as it answered.",
    columns: {
      id: "Scenario id given by the service.",
      request_key: "`scenario_requests.key`.",
      company_id: "Company.",
      project_id: "Project.",
      type: "E.g. `SELENIUM`.",
      scenario_name: "Name.",
      description: "Description.",
      enabled: "Enabled.",
      deleted: "Deleted.",
      testrail_enabled: "Test-management flag.",
      parent_id: "The parent's id from the answer's `parent`; NULL when none.",
      execute_mode: "E.g. `AUTOMATED`.",
      source_file: "Source file.",
      max_execution_time: "Seconds.",
      childs_json: "`childs` as JSON.",
      parameterized: "Parameterized.",
      has_parameterized_class: "Has a parameterized class.",
      java_test_class: "E.g. `LoginValid` for `LoginValid.java`.",
      java_test_methods: "Java test methods.",
      test_scenario_java_parameters_json: "`test_scenario_java_parameters` as JSON.",
      is_group: "The answer's `group`.",
      raw_json: "The answer as received.",
      recorded_at: "When it was stored.",
    },
  },
  seed_rejections: {
    summary: "Seed rows that were not queued (`push --skip-invalid`), with their reasons.",
    columns: {
      id: "Generated row id.",
      batch_id: "The `push` run (`scenario_requests.batch_id`).",
      source_file: "Absolute path of the seed file.",
      line: "Line of the row.",
      key: "The row's key, if it had one.",
      field: "Field as written in the file; NULL for a whole-row problem.",
      reason: "Reason, as printed by `push`.",
      recorded_at: "When it was stored.",
    },
  },
};

export const VIEW_DOCS: Record<string, TableDoc> = {
  v_plan_schedule: {
    summary: "Live plans (`deleted_at IS NULL`) with their schedule.",
    columns: {
      plan_id: "`plans.id`.",
      company_id: "From `plans`.",
      project_id: "From `plans`.",
      plan_name: "From `plans`.",
      enabled: "From `plans`.",
      platform: "From `plans`.",
      period_type: "From `plans`.",
      period_start_at: "From `plans`.",
      period_end_at: "From `plans`.",
      period_once_at: "From `plans`.",
      period_repeat_minutes: "From `plans`.",
      period_days_of_week: "From `plans`.",
      day_names:
        "Day names joined with commas in day-number order (`MONDAY,TUESDAY,…`); NULL when there are none.",
    },
  },
  v_report_plan_coverage: {
    summary: "One row per plan link of each live report.",
    columns: {
      report_id: "From `scheduled_reports`.",
      company_id: "From `scheduled_reports`.",
      report_name: "From `scheduled_reports`.",
      plan_id: "Linked plan id (`report_plans`).",
      plan_name: "The plan's name, if known.",
      plan_deleted_at: "Set when the plan was seen once and has since been deleted.",
      dangling:
        "True when **no plan with that id was ever seen in the report's company**: another company's plan, or one deleted before the first sync.",
    },
  },
};
