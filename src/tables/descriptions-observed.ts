/** What the tables of the observed schema hold (the words of the table reference; see ./descriptions.ts). */
import type { TableDoc } from "./table-doc.js";

const KEY = {
  company_id: "Company.",
  entity:
    "What the path is in: `plan`, `period`, `environment`, `resolutions`, `plan_alert`, `fetch_app_file`, `mobile_app`, `mobile_app_metadata:<OS>` (the keys of the JSON document in `mobile_app_metadata`, per operating system), `scheduled_report`, `report_alert`.",
  path: "JSON path inside the entity: `start_date`, `glEsVersion.major`, `tags[]` (the items of a list); `` (empty) for the entity itself.",
};

export const OBSERVED_TABLE_DOCS: Record<string, TableDoc> = {
  schema_paths: {
    summary:
      "The service as observed: one row per company, entity and JSON path of the records the mirror holds. Counts follow the stored records (a changed or deleted record's old values are taken out); an unchanged record costs nothing. Read `v_schema` for a readable form.",
    columns: {
      ...KEY,
      present:
        "How many values the path has in the records held (for a path inside a list: how many items carry it). On `` (the entity itself): how many of the entity there are.",
      n_string: "Values that are strings.",
      n_integer: "Values that are whole numbers.",
      n_number: "Values that are numbers with a fraction.",
      n_boolean: "Values that are `true` or `false`.",
      n_null: "Values that are `null`.",
      n_object: "Values that are objects.",
      n_array: "Values that are lists.",
      min_number: "Smallest number ever seen at the path (not taken back when its record changes).",
      max_number: "Largest number ever seen at the path.",
      values_capped:
        "True when the path's values are not kept in `schema_values`: a free-text or identifier path (names, descriptions, e-mail addresses, ids, hashes, dates: never kept, see docs/schema.md#what-is-observed), or more distinct strings than `schema.valueCap` (50) seen at it.",
      first_run_id: "`sync_runs.id` of the run that first saw the path.",
      first_seen_at: "Start of that run.",
      last_run_id: "`sync_runs.id` of the latest run whose new or changed records carried the path.",
      last_seen_at: "Start of that run.",
    },
  },
  schema_values: {
    summary:
      "The string values of each path with few distinct ones (at most `schema.valueCap`), with how many values hold each.",
    columns: {
      ...KEY,
      value: "A string seen at the path.",
      count: "How many values at the path are that string, in the records held.",
    },
  },
  schema_changes: {
    summary:
      "What each run found different from what was known, one row per change (`tas-sync schema --changes`). A run that changes nothing writes no row. The first run of a company sets what is known and writes no row.",
    columns: {
      id: "Change id (`tas-sync schema --ack ID`).",
      company_id: KEY.company_id,
      run_id: "`sync_runs.id` of the run that found it.",
      detected_at: "Start of that run.",
      entity: KEY.entity,
      path: KEY.path,
      kind: "`added` (a path not known before), `removed` (gone from a complete list), `type_changed` (the set of types differs, e.g. `integer` to `integer,string`), `new_value` or `value_gone` (a string value of a path with few).",
      before: "What was known: the types (`integer,string`) or the value; NULL for `added` and `new_value`.",
      after: "What the run found; NULL for `removed` and `value_gone`.",
      example_id: "The id of a record (plan or report) that shows it, when there is one.",
      refused:
        "How many records the run refused (the reader rejected them, e.g. a documented field of another type, or the `freeze` contract did) show the change; NULL for a change of the records it stored. Such a change is recorded once, however many runs refuse the same records (docs/schema.md#refused-records).",
      acknowledged_at:
        "When it was acknowledged (`tas-sync schema --ack`); NULL while open. Open changes show in `status`; under the `freeze` contract, paths and types only in open changes are refused.",
    },
  },
};

export const OBSERVED_VIEW_DOCS: Record<string, TableDoc> = {
  v_schema: {
    summary: "`schema_paths` for people: one row per path (the entity rows left out), its types in one text.",
    columns: {
      company_id: KEY.company_id,
      entity: KEY.entity,
      path: KEY.path,
      types: "The JSON types the path holds, e.g. `integer,null`.",
      present: "From `schema_paths`.",
      entity_count:
        "How many of the entity there are (`present` of its `` row): `present / entity_count` is the share that carries the path.",
      values_capped: "From `schema_paths`.",
      min_number: "From `schema_paths`.",
      max_number: "From `schema_paths`.",
      first_seen_at: "From `schema_paths`.",
      last_seen_at: "From `schema_paths`.",
    },
  },
};
