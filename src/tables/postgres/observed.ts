/** The service as observed (see the SQLite schema): the same tables and columns. */
import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { id, serialId, ts } from "./columns.js";

export const schemaPaths = pgTable(
  "schema_paths",
  {
    companyId: id("company_id").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    present: integer("present").notNull().default(0),
    nString: integer("n_string").notNull().default(0),
    nInteger: integer("n_integer").notNull().default(0),
    nNumber: integer("n_number").notNull().default(0),
    nBoolean: integer("n_boolean").notNull().default(0),
    nNull: integer("n_null").notNull().default(0),
    nObject: integer("n_object").notNull().default(0),
    nArray: integer("n_array").notNull().default(0),
    minNumber: doublePrecision("min_number"),
    maxNumber: doublePrecision("max_number"),
    valuesCapped: boolean("values_capped").notNull().default(false),
    firstRunId: id("first_run_id"),
    firstSeenAt: ts("first_seen_at"),
    lastRunId: id("last_run_id"),
    lastSeenAt: ts("last_seen_at"),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.entity, t.path] })],
);

export const schemaValues = pgTable(
  "schema_values",
  {
    companyId: id("company_id").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    value: text("value").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.entity, t.path, t.value] })],
);

export const schemaChanges = pgTable(
  "schema_changes",
  {
    id: serialId("id"),
    companyId: id("company_id").notNull(),
    runId: id("run_id").notNull(),
    detectedAt: ts("detected_at").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    kind: text("kind", { enum: ["added", "removed", "type_changed", "new_value", "value_gone"] }).notNull(),
    before: text("before"),
    after: text("after"),
    exampleId: id("example_id"),
    /** Records the run refused that show the change (NULL: a change of the records it stored). */
    refused: integer("refused"),
    acknowledgedAt: ts("acknowledged_at"),
  },
  (t) => [
    index("schema_changes_company_idx").on(t.companyId, t.id),
    // Open changes per company (status, the daemon's drift gauge), without reading the acknowledged ones.
    index("schema_changes_open_idx").on(t.companyId).where(sql`acknowledged_at IS NULL`),
    // A prune keeps the runs that found a change.
    index("schema_changes_run_idx").on(t.runId),
  ],
);
