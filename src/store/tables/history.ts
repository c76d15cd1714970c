/** History: every content a plan or report had, with its validity interval. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const planVersions = sqliteTable(
  "plan_versions",
  {
    versionId: integer("version_id").primaryKey({ autoIncrement: true }),
    id: integer("id").notNull(),
    contentHash: text("content_hash").notNull(),
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to"),
    rawJson: text("raw_json").notNull(),
    runId: integer("run_id"),
  },
  (t) => [index("plan_versions_id_idx").on(t.id, t.validFrom)],
);

export const reportVersions = sqliteTable(
  "report_versions",
  {
    versionId: integer("version_id").primaryKey({ autoIncrement: true }),
    id: integer("id").notNull(),
    contentHash: text("content_hash").notNull(),
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to"),
    rawJson: text("raw_json").notNull(),
    runId: integer("run_id"),
  },
  (t) => [index("report_versions_id_idx").on(t.id, t.validFrom)],
);
