/**
 * The field-level change log, PostgreSQL's words for sqlite/changes.ts (read that file's notes).
 * A version's leaves come from tas_json_leaves(text, text), a function the migration that made these
 * views creates (its text: json-functions.ts): JSON that does not parse has none, where a cast
 * would fail the whole query.
 */
import { sql } from "drizzle-orm";
import { pgView, text } from "drizzle-orm/pg-core";
import { changesQuery } from "../changes-sql.js";
import { id, ts } from "./columns.js";

function steps(records: string, versions: string): string {
  return `SELECT n.id, r.company_id, n.version_id, n.run_id, n.valid_from AS changed_at,
          coalesce(n.raw_json, r.raw_json) AS new_json, p.version_id AS prev_version_id,
          p.valid_to AS prev_valid_to, coalesce(p.raw_json, r.raw_json) AS old_json
        FROM ${versions} n
        JOIN ${records} r ON r.id = n.id
        LEFT JOIN LATERAL (SELECT q.version_id, q.valid_to, q.raw_json FROM ${versions} q
          WHERE q.id = n.id AND (q.valid_from < n.valid_from OR (q.valid_from = n.valid_from AND q.version_id < n.version_id))
          ORDER BY q.valid_from DESC, q.version_id DESC LIMIT 1) p ON true`;
}

function leaves(records: string, versions: string): string {
  return `SELECT s.id, s.company_id, s.version_id, s.run_id, s.changed_at, d.side, l.path, l.member, l.typ, l.val
        FROM (${steps(records, versions)}) s
        CROSS JOIN (VALUES (0), (1)) d(side)
        CROSS JOIN LATERAL tas_json_leaves(CASE d.side WHEN 0 THEN s.old_json ELSE s.new_json END,
          CASE d.side WHEN 0 THEN s.new_json ELSE s.old_json END) l
        WHERE s.prev_version_id IS NOT NULL`;
}

function changesView<N extends string>(name: N, records: string, versions: string) {
  return pgView(name, {
    id: id("id").notNull(),
    companyId: id("company_id").notNull(),
    versionId: id("version_id").notNull(),
    runId: id("run_id"),
    changedAt: ts("changed_at").notNull(),
    path: text("path").notNull(),
    kind: text("kind", { enum: ["added", "removed", "changed"] }).notNull(),
    valueBefore: text("value_before"),
    valueAfter: text("value_after"),
  }).as(sql.raw(changesQuery(records, versions, leaves(records, versions), steps(records, versions))));
}

export const vPlanChanges = changesView("v_plan_changes", "plans", "plan_versions");
export const vReportChanges = changesView("v_report_changes", "scheduled_reports", "report_versions");
