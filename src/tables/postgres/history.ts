/** History: every content a plan or report had, with its validity interval. */
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { id, serialId, ts } from "./columns.js";

/**
 * One row per content of a record; `valid_to` is NULL for the current one. `raw_json` is NULL
 * while the version's content is the record row's own (the row's raw_json): the text is stored
 * once, and moves here when the row's content is replaced. v_plan_versions / v_report_versions
 * give every version's text.
 */
function versionsTable<N extends string>(name: N) {
  return pgTable(
    name,
    {
      versionId: serialId("version_id"),
      id: id("id").notNull(),
      contentHash: text("content_hash").notNull(),
      validFrom: ts("valid_from").notNull(),
      validTo: ts("valid_to"),
      rawJson: text("raw_json"),
      runId: id("run_id"),
    },
    (t) => [index(`${name}_id_idx`).on(t.id, t.validFrom)],
  );
}

export const planVersions = versionsTable("plan_versions");
export const reportVersions = versionsTable("report_versions");
