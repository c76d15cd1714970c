/** The words of the field-level change log views (v_plan_changes, v_report_changes). */
import type { TableDoc } from "./table-doc.js";

const changesDoc = (record: "plan" | "report", table: string, history: string): TableDoc => ({
  summary: `What changed in each ${record}, field by field: one row per field (or list member) a new version of \`${history}\` changed, plus one row for the ${record}'s first version and one for its deletion. Computed from the history when read: asked for one ${record} (\`WHERE id = …\`), it reads only that ${record}'s versions, through the history's index.`,
  columns: {
    id: `\`${table}.id\`.`,
    company_id: `From \`${table}\` (the company that holds it now).`,
    version_id: `\`${history}.version_id\` of the version the change opened; for a deletion, of the version it closed.`,
    run_id:
      "`sync_runs.id` of the run that saw the change (for a deletion, the run that started at `changed_at`; NULL once that run is pruned).",
    changed_at:
      "Start of that run: the change happened on the service between the previous sync and this time.",
    path: "The field, its keys joined by `.` (`plan_name`, `period.start_date`, `resolutions.WIN10`, `selected_android_mobile_app.mobile_app_metadata.versionName`); a list's members have the list's path (`scenarios`, `environments`, `plan_id_list`, `email_list`, `alerts.target`). `''` is the whole record.",
    kind: "`added` (a field, a list member, or with path `''` the record's first version or its return after deletion), `removed` (a field, a member, or with path `''` the deletion), `changed` (a field's value).",
    value_before:
      "The value before, as text: strings as they are (unescaped), numbers and `true`/`false` as written, NULL for JSON null and for `added`. With path `''`, the whole record's JSON.",
    value_after: "The value after, as `value_before`; NULL for `removed`.",
  },
  notes: `- Values are compared parsed: the same JSON written with other escapes (\`\\u00e9\` for \`é\`) or key order is no change, and a version whose only difference is such is listed with no field row.
- A list is a set of members with their counts: \`scenarios\` from \`[1, 2]\` to \`[2, 3]\` is \`1\` removed and \`3\` added; a duplicate added (\`environments\` may repeat an id) is that id added. Positions are not changes. A list of objects lists each key of its items as members of \`list.key\` (\`alerts.target\`), and a list of \`{"id": …}\` objects its ids (\`environments\`).
- \`mobile_app_metadata\` (a JSON document in a string) is read as an object, its keys as paths; its \`\\'\` quirk is read as in \`mobile_apps\`. Unparsable metadata compares as a string.
- Fields are read three levels deep (\`a.b.c\`); a value nested deeper compares, and is shown, as its JSON text (its spacing and key order then follow the store: PostgreSQL writes \`{"a": 1}\`, SQLite \`{"a":1}\`).
- An empty list or object has no fields: a field going from absent to \`[]\` or \`{}\` is not listed.
- Reading the whole view computes every version's changes: filter by \`id\`, \`run_id\` or \`changed_at\` (see docs/analytics.md).`,
});

export const CHANGE_VIEW_DOCS: Record<string, TableDoc> = {
  v_plan_changes: changesDoc("plan", "plans", "plan_versions"),
  v_report_changes: changesDoc("report", "scheduled_reports", "report_versions"),
};
