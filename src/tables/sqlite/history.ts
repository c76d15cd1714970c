/** History: every content a plan or report had, with its validity interval. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row per content of a record; `valid_to` is NULL for the current one. `raw_json` is NULL
 * while the version's content is the record row's own (the row's raw_json): the text is stored
 * once, and moves here when the row's content is replaced. v_plan_versions / v_report_versions
 * give every version's text.
 */
function versionsTable<N extends string>(name: N) {
  return sqliteTable(
    name,
    {
      versionId: integer("version_id").primaryKey({ autoIncrement: true }),
      id: integer("id").notNull(),
      contentHash: text("content_hash").notNull(),
      validFrom: text("valid_from").notNull(),
      validTo: text("valid_to"),
      rawJson: text("raw_json"),
      runId: integer("run_id"),
    },
    (t) => [index(`${name}_id_idx`).on(t.id, t.validFrom)],
  );
}

export const planVersions = versionsTable("plan_versions");
export const reportVersions = versionsTable("report_versions");
