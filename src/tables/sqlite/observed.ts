/**
 * The service as observed: for each company, entity and JSON path, the types, presence and
 * values of the records the mirror holds, and the changes each run found (drift).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";

/** One row per (company, entity, path); path "" is the entity itself (how many there are). */
export const schemaPaths = sqliteTable(
  "schema_paths",
  {
    companyId: integer("company_id").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    /** Values at the path in the records the mirror holds (live ones). */
    present: integer("present").notNull().default(0),
    nString: integer("n_string").notNull().default(0),
    nInteger: integer("n_integer").notNull().default(0),
    nNumber: integer("n_number").notNull().default(0),
    nBoolean: integer("n_boolean").notNull().default(0),
    nNull: integer("n_null").notNull().default(0),
    nObject: integer("n_object").notNull().default(0),
    nArray: integer("n_array").notNull().default(0),
    minNumber: real("min_number"),
    maxNumber: real("max_number"),
    /** More distinct strings than schema.valueCap were seen: values are not listed. */
    valuesCapped: bool("values_capped").notNull().default(false),
    firstRunId: integer("first_run_id"),
    firstSeenAt: text("first_seen_at"),
    lastRunId: integer("last_run_id"),
    lastSeenAt: text("last_seen_at"),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.entity, t.path] })],
);

/** String values of a path with few distinct ones (at most schema.valueCap), with counts. */
export const schemaValues = sqliteTable(
  "schema_values",
  {
    companyId: integer("company_id").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    value: text("value").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.entity, t.path, t.value] })],
);

/** What a run found changed against what was known: one row per change. */
export const schemaChanges = sqliteTable(
  "schema_changes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: integer("company_id").notNull(),
    runId: integer("run_id").notNull(),
    detectedAt: text("detected_at").notNull(),
    entity: text("entity").notNull(),
    path: text("path").notNull(),
    kind: text("kind", { enum: ["added", "removed", "type_changed", "new_value", "value_gone"] }).notNull(),
    before: text("before"),
    after: text("after"),
    /** A record that shows the change (its id), when there is one. */
    exampleId: integer("example_id"),
    /** Records the run refused that show the change (NULL: a change of the records it stored). */
    refused: integer("refused"),
    acknowledgedAt: text("acknowledged_at"),
  },
  (t) => [
    index("schema_changes_company_idx").on(t.companyId, t.id),
    // Open changes per company (status, the daemon's drift gauge), without reading the acknowledged ones.
    index("schema_changes_open_idx").on(t.companyId).where(sql`acknowledged_at IS NULL`),
    // A prune keeps the runs that found a change.
    index("schema_changes_run_idx").on(t.runId),
  ],
);
