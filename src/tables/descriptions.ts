/**
 * What each table, view and column of the mirror holds, for the table reference
 * (docs/reference/tables.md, written by `npm run docs` with the types read from the drizzle
 * schemas). Kept apart from the table files so that a schema change and its words can be made
 * by different hands; a unit test fails when a table or column of either schema has no words
 * here, or words name a table or column that no longer exists. Tables are listed in this order.
 */
export type { TableDoc } from "./table-doc.js";

import { CHANGE_VIEW_DOCS } from "./descriptions-changes.js";
import { MIRROR_TABLE_DOCS } from "./descriptions-mirror.js";
import { OBSERVED_TABLE_DOCS, OBSERVED_VIEW_DOCS } from "./descriptions-observed.js";
import type { TableDoc } from "./table-doc.js";

const RUN = "`sync_runs.id` of the run that wrote it.";

/** The bookkeeping of syncs and the push outbox. */
const RUN_AND_PUSH_TABLE_DOCS: Record<string, TableDoc> = {
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
      plans_listed_at:
        "`started_at` of the newest run whose plan list was complete (deletions applied): every plan of the company still live was in that list. NULL before the first.",
      plans_seen_at:
        "`started_at` of the newest run whose plan list was applied, complete or not (deletions held back): every live plan of the company was in it, except those in `unlisted_plans`. It stands for a sighting of each of them, which no plan row repeats. NULL before the first.",
      rejections_run_id:
        "The newest sync (not a replay, not `failed`) of the company: the `rejected_records` rows whose `last_run_id` is this run are what is rejected now (`v_rejected_now`).",
      write_generation:
        "Counts the writes to the company's plans and reports (its snapshots, and another company's snapshot taking over one of its plans). A sync reads it with the company's index before it downloads; an apply that finds it moved writes nothing and the sync starts again.",
      alert_state:
        "What the daemons last alerted: `ok`, `failing`, `stale` or `failing+stale`; NULL before the first change.",
      alert_changed_at: "When it was set.",
      last_run_id:
        "The company's newest finished run (the highest `sync_runs.id` not `running`), set where a run ends (finished, superseded, cancelled, or reaped as `failed`): what `status`, `/metrics` and the freshness check show as its last run. NULL before the first.",
      last_success_at:
        "`started_at` of the company's newest `succeeded` or `partial` run that was not a replay, set where such a run ends: what freshness is measured from. NULL before the first.",
    },
  },
  rejected_records: {
    summary:
      "Records that failed validation, one row per episode: the same content (entity, id or none, content hash) rejected for the same reason by consecutive syncs of a company. Seen again, its row's `last_run_id`, `last_seen_at` and `seen_runs` move and its text is not stored again; a content that goes and comes back begins a new row. Nothing else was written for them. What is rejected now: `v_rejected_now`.",
    columns: {
      id: "Generated row id.",
      company_id: "Company whose sync rejected it.",
      entity: "`plan` or `scheduled_report`.",
      entity_id:
        "The plan's id if it had a usable one, else NULL (a NULL plan id holds back that run's deletions); for a report, its id.",
      content_hash:
        "SHA-256 (hex) of `raw_json` (of the empty text when there is none); `legacy:<id>` for a row written before episodes.",
      reason:
        "One line: `invalid JSON: …`, up to five schema issues `path: message`, `plan id X appears twice in the response`, …",
      first_run_id: "The run that first rejected it in this episode.",
      last_run_id:
        "The latest run that rejected it. Every sync of the company (not a replay) that ended `succeeded` or `partial` with an id from `first_run_id` to `last_run_id` rejected it.",
      first_seen_at: "`started_at` of the first run: rejected since.",
      last_seen_at: "`started_at` of the latest run.",
      seen_runs: "How many runs rejected it in this episode.",
      raw_json: "The record's text as received.",
    },
  },
  unlisted_plans: {
    summary:
      "Live plans missing from a plan list whose deletions were held back (an element without a usable id, a list cut short): that list does not vouch for them, so each keeps its last sighting here until a list holds it again (the row goes) or a complete list deletes it. `v_plans.last_seen_at` reads it.",
    columns: {
      plan_id: "The plan.",
      company_id: "Its company.",
      last_seen_at: "`started_at` of the latest run whose list held it.",
      missing_since: "`started_at` of the first run whose list lacked it.",
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
      status:
        "`pending`, `queued`, `created`, `exists`, `failed`, `blocked` (waits for its parent's id) or `held` (its company's credentials were refused: `error_code` `CREDENTIALS_REFUSED`, `last_error` says which and how to go on) (see docs/push.md).",
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

/** Every table, in the order the reference lists them. */
export const TABLE_DOCS: Record<string, TableDoc> = {
  ...MIRROR_TABLE_DOCS,
  ...OBSERVED_TABLE_DOCS,
  ...RUN_AND_PUSH_TABLE_DOCS,
};

export const VIEW_DOCS: Record<string, TableDoc> = {
  ...OBSERVED_VIEW_DOCS,
  v_plans: {
    summary:
      "Every plan (live and deleted) with when it was last seen. Use it instead of `plans` when you need `last_seen_at`.",
    columns: {
      ...Object.fromEntries(
        Object.keys(MIRROR_TABLE_DOCS.plans?.columns ?? {}).map((c) => [c, "From `plans`."]),
      ),
      last_seen_at:
        "Start of the latest run whose list had the plan: for a deleted plan `seen_at`; for a live plan in `unlisted_plans` its `last_seen_at` there; for any other live plan the later of `seen_at` and its company's `sync_state.plans_seen_at`.",
    },
  },
  v_rejected_now: {
    summary:
      "What is rejected now: the `rejected_records` episodes that the company's newest sync (`sync_state.rejections_run_id`) rejected; `first_seen_at` says since when, `reason` why.",
    columns: Object.fromEntries(
      [
        "id",
        "company_id",
        "entity",
        "entity_id",
        "content_hash",
        "reason",
        "first_run_id",
        "last_run_id",
        "first_seen_at",
        "last_seen_at",
        "seen_runs",
        "raw_json",
      ].map((c) => [c, "From `rejected_records`."]),
    ),
  },
  v_plan_versions: {
    summary: "`plan_versions` with every version's JSON text, the current one's taken from its `plans` row.",
    columns: {
      ...Object.fromEntries(
        Object.keys(MIRROR_TABLE_DOCS.plan_versions?.columns ?? {}).map((c) => [c, "From `plan_versions`."]),
      ),
      raw_json: "The version's content as received (never NULL).",
    },
  },
  v_report_versions: {
    summary:
      "`report_versions` with every version's JSON text, the current one's taken from its `scheduled_reports` row.",
    columns: {
      ...Object.fromEntries(
        Object.keys(MIRROR_TABLE_DOCS.report_versions?.columns ?? {}).map((c) => [
          c,
          "From `report_versions`.",
        ]),
      ),
      raw_json: "The version's content as received (never NULL).",
    },
  },
  ...CHANGE_VIEW_DOCS,
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
