/** Spec of `tas-sync schema`, the service as observed. Help text only: no implementation here. */
import type { CommandSpec } from "../types.js";

export const schemaSpec: CommandSpec = {
  name: "schema",
  summary: "show the service's schema as observed (paths, types, values), its changes; acknowledge them",
  help: `Usage: tas-sync schema [--company ID] [--json]
       tas-sync schema --changes [--since DATE|RUN] [--company ID] [--json]
       tas-sync schema --markdown [FILE] [--company ID]
       tas-sync schema --ack ID|all [--company ID]

Every sync observes the JSON of the plans and scheduled reports it stores (new or changed
ones; unchanged ones cost nothing) and records what differs from what was known. This prints,
per company and entity (plan, period, environment, resolutions, plan_alert, fetch_app_file,
mobile_app, mobile_app_metadata:<OS>, scheduled_report, report_alert), each JSON path with
its types and their counts, how many records carry it (and their share), its string values
with counts ("(more than N)" past schema.valueCap) and the smallest and largest number.
Needs none of the service's secrets (env: variables of auth may be unset). See docs/schema.md.

Options:
  --company ID        only this company
  --json              one JSON array, an object per path: company_id, entity, path, types
                        ({"string": 3}), present, entity_count, share, values ([{value,
                        count}], or null when capped), min, max, first/last run and time
  --changes           the change log instead, oldest first: added, removed, type_changed,
                        new_value, value_gone, with the run that found each, before and
                        after, an example record id, and whether it was acknowledged
  --since DATE|RUN    with --changes: found at or after DATE (2025-03-01, or an ISO 8601
                        time with its zone), or by run RUN and the runs after it
  --markdown          "the API as observed" as markdown, to FILE or stdout: the contract's
                        "not shown" gaps answered with what was seen, then a section per entity
  --ack ID|all        acknowledge change ID, or every open change (of --company when given):
                        status stops counting it; the freeze contract accepts what it allows

Exit codes: 0 done; 2 bad usage or config, an unknown change id, a --since that is neither a
            date nor a run id, a FILE that cannot be written.`,
  options: {
    company: { type: "string" },
    json: { type: "boolean" },
    changes: { type: "boolean" },
    since: { type: "string" },
    markdown: { type: "boolean" },
    ack: { type: "string" },
  },
  positionals: 1,
  readOnly: true,
  load: () => import("../schema.js").then((m) => m.runSchema),
};
