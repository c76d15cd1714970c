/**
 * The field-level change log (v_plan_changes, v_report_changes): one row per field a new version
 * changed, computed from the history when read (the sync's writes do not move). SQL text built
 * here once for plans and reports; postgres/changes.ts is the same query in PostgreSQL's words.
 *
 * A version's fields are its JSON leaves, three levels deep (deeper values compare as JSON
 * text). A path names a field by its keys (`period.start_date`, `resolutions.WIN10`); a string
 * that holds a JSON object (`mobile_app_metadata`, also with the service's `\'`) is read as one.
 * Under a list, the leaves are members of the list's path (`scenarios`, `email_list`,
 * `alerts.target`; a list of `{id}` objects lists its ids: `environments`): members added and
 * removed are counted (a duplicate counts), never positions. Values compare parsed, so equal
 * JSON escaped otherwise is no change. The record's first version (and a version after its
 * deletion) is the path '' added; its deletion the path '' removed.
 */
import { sql } from "drizzle-orm";
import { integer, sqliteView, text } from "drizzle-orm/sqlite-core";
import { changesQuery } from "../changes-sql.js";

/** What a JSON node of json_each `x` holds to be read further: an object, a list, or a JSON object in a string. */
const descend = (x: string) => `CASE WHEN ${x}.type IN ('object', 'array') THEN ${x}.value
          WHEN ${x}.type = 'text' AND ${x}.value LIKE '{%' THEN CASE WHEN json_valid(${x}.value) THEN ${x}.value
            WHEN json_valid(replace(${x}.value, '\\''', '''')) THEN replace(${x}.value, '\\''', '''') END END`;

/** The deepest node of a row of the three json_each levels. */
const node = (f: string) =>
  `CASE WHEN c.id IS NOT NULL THEN c.${f} WHEN b.id IS NOT NULL THEN b.${f} ELSE a.${f} END`;

/** Each version with the one before it (by valid_from) and both texts. */
function steps(records: string, versions: string): string {
  return `SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM ${versions} n
        JOIN ${records} r ON r.id = n.id
        LEFT JOIN ${versions} p ON p.version_id = (SELECT q.version_id FROM ${versions} q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1)`;
}

/**
 * (Texts SQLite cannot parse, such as JSON nested deeper than its limit, have no leaves: one odd
 * record never fails the view.)
 * The leaves of both texts of each step that has a previous version (side 0: before, 1: after),
 * under the top-level keys whose value differs from the other text's (`o`): equal values (same
 * type, same text) cannot differ below, and most of a version's fields are unchanged.
 */
function leaves(records: string, versions: string): string {
  return `SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side,
          a.key || CASE WHEN b.id IS NULL OR a.type = 'array' THEN '' ELSE '.' || b.key END
            || CASE WHEN c.id IS NULL OR b.type = 'array' OR (a.type = 'array' AND c.key = 'id') THEN ''
               ELSE '.' || c.key END AS path,
          CASE WHEN a.type = 'array' OR (c.id IS NOT NULL AND b.type = 'array') THEN 1 ELSE 0 END AS member,
          CASE ${node("type")} WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'true' THEN 'boolean'
            WHEN 'false' THEN 'boolean' WHEN 'text' THEN 'string' ELSE ${node("type")} END AS typ,
          CASE ${node("type")} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL
            WHEN 'object' THEN json(${node("value")}) WHEN 'array' THEN json(${node("value")})
            ELSE CAST(${node("value")} AS TEXT) END AS val
        FROM (${steps(records, versions)}) s
        JOIN (SELECT 0 AS side UNION ALL SELECT 1) d
        JOIN json_each(CASE WHEN json_valid(s.old_json) AND json_valid(s.new_json)
          THEN CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END END) a
        LEFT JOIN json_each(CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) o ON o.key = a.key
        LEFT JOIN json_each(${descend("a")}) b
        LEFT JOIN json_each(${descend("b")}) c
        WHERE s.prev_version_id IS NOT NULL
          AND (o.id IS NULL OR o.type IS NOT a.type OR o.value IS NOT a.value)
          AND (c.id IS NOT NULL OR ${node("type")} NOT IN ('object', 'array'))`;
}

function changesView<N extends string>(name: N, records: string, versions: string) {
  return sqliteView(name, {
    id: integer("id").notNull(),
    companyId: integer("company_id").notNull(),
    versionId: integer("version_id").notNull(),
    runId: integer("run_id"),
    changedAt: text("changed_at").notNull(),
    path: text("path").notNull(),
    kind: text("kind", { enum: ["added", "removed", "changed"] }).notNull(),
    valueBefore: text("value_before"),
    valueAfter: text("value_after"),
  }).as(sql.raw(changesQuery(records, versions, leaves(records, versions), steps(records, versions))));
}

export const vPlanChanges = changesView("v_plan_changes", "plans", "plan_versions");
export const vReportChanges = changesView("v_report_changes", "scheduled_reports", "report_versions");
