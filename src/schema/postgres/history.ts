/** History: every content a plan or report had, with its validity interval. */
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { id, serialId, ts } from "./columns.js";

/** One row per content of a record; `valid_to` is NULL for the current one. */
function versionsTable<N extends string>(name: N) {
  return pgTable(
    name,
    {
      versionId: serialId("version_id"),
      id: id("id").notNull(),
      contentHash: text("content_hash").notNull(),
      validFrom: ts("valid_from").notNull(),
      validTo: ts("valid_to"),
      rawJson: text("raw_json").notNull(),
      runId: id("run_id"),
    },
    (t) => [index(`${name}_id_idx`).on(t.id, t.validFrom)],
  );
}

export const planVersions = versionsTable("plan_versions");
export const reportVersions = versionsTable("report_versions");
