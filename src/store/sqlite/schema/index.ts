/** The observed schema on SQLite: reads for people and syncs, acknowledgements, a run's write. */

import type {
  ObservedPath,
  SchemaChange,
  SchemaChangeFilter,
  SchemaStore,
  SchemaWrite,
} from "../../../observed/port.js";
import {
  type ChangeRow,
  changeOf,
  type PathRow,
  pathKey,
  pathOf,
  pathRow,
  valuesByPath,
} from "../../../observed/rows.js";
import { schemaChanges, schemaPaths, schemaValues } from "../../../tables/sqlite/index.js";
import { compileInsert, overwrite } from "../binder.js";
import type { Sqlite } from "../connection.js";
import { perConnection, prepared } from "../prepared.js";

function observed(sqlite: Sqlite, companyId?: number): ObservedPath[] {
  const where = companyId === undefined ? "" : "WHERE company_id = ?";
  const args = companyId === undefined ? [] : [companyId];
  const rows = sqlite
    .prepare(`SELECT * FROM schema_paths ${where} ORDER BY company_id, entity, path`)
    .all(...args) as PathRow[];
  const values = valuesByPath(
    sqlite
      .prepare(
        `SELECT company_id, entity, path, value, count FROM schema_values ${where} ORDER BY count DESC, value`,
      )
      .all(...args) as { company_id: number; entity: string; path: string; value: string; count: number }[],
  );
  return rows.map((r) => pathOf(r, values.get(pathKey(r.company_id as number, r.entity, r.path)) ?? []));
}

/** A run's observations, inside its snapshot's transaction. */
export function writeSchema(
  sqlite: Sqlite,
  companyId: number,
  runId: number,
  at: string,
  w: SchemaWrite,
): void {
  const { upsertPath, dropValues, addValue, seen, addChange } = statements(sqlite);
  for (const p of w.paths) {
    upsertPath(pathRow(p));
    if (p.valuesKept) continue;
    dropValues.run(companyId, p.entity, p.path);
    for (const v of p.values)
      addValue({ companyId, entity: p.entity, path: p.path, value: v.value, count: v.count });
  }
  for (const p of w.seen ?? []) seen.run(runId, at, companyId, p.entity, p.path);
  for (const c of w.changes)
    addChange({ ...c, refused: c.refused ?? null, companyId, runId, detectedAt: at });
}

/** The writer's statements, compiled once per connection from the drizzle tables. */
const statements = (sqlite: Sqlite) =>
  perConnection(sqlite, "schema.write", () => ({
    upsertPath: compileInsert<ReturnType<typeof pathRow>>(
      sqlite,
      schemaPaths,
      [],
      `ON CONFLICT (company_id, entity, path) DO UPDATE SET ${overwrite(schemaPaths, ["companyId", "entity", "path"])}`,
    ),
    dropValues: sqlite.prepare("DELETE FROM schema_values WHERE company_id = ? AND entity = ? AND path = ?"),
    addValue: compileInsert<typeof schemaValues.$inferInsert>(sqlite, schemaValues),
    seen: sqlite.prepare(
      "UPDATE schema_paths SET last_run_id = ?, last_seen_at = ? WHERE company_id = ? AND entity = ? AND path = ?",
    ),
    addChange: compileInsert<typeof schemaChanges.$inferInsert>(sqlite, schemaChanges),
  }));

export function sqliteSchema(sqlite: Sqlite): SchemaStore {
  return {
    observed: async ({ companyId }) => observed(sqlite, companyId),
    changes: async (f: SchemaChangeFilter): Promise<SchemaChange[]> => {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (cond: string, v: unknown) => {
        where.push(cond);
        args.push(v);
      };
      if (f.id !== undefined) add("id = ?", f.id);
      if (f.companyId !== undefined) add("company_id = ?", f.companyId);
      if (f.kinds !== undefined) add("kind IN (SELECT value FROM json_each(?))", JSON.stringify(f.kinds));
      if (f.sinceAt !== undefined) add("detected_at >= ?", f.sinceAt);
      if (f.sinceRunId !== undefined) add("run_id >= ?", f.sinceRunId);
      if (f.open) where.push("acknowledged_at IS NULL");
      const rows = sqlite
        .prepare(
          `SELECT * FROM schema_changes ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id`,
        )
        .all(...args) as ChangeRow[];
      return rows.map(changeOf);
    },
    acknowledge: async (target, at) => {
      if ("id" in target)
        return prepared(
          sqlite,
          "UPDATE schema_changes SET acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL",
        ).run(at, target.id).changes;
      if (target.companyId === undefined)
        return prepared(
          sqlite,
          "UPDATE schema_changes SET acknowledged_at = ? WHERE acknowledged_at IS NULL",
        ).run(at).changes;
      return prepared(
        sqlite,
        "UPDATE schema_changes SET acknowledged_at = ? WHERE company_id = ? AND acknowledged_at IS NULL",
      ).run(at, target.companyId).changes;
    },
    openChanges: async (companyIds) => {
      const out = new Map<number, number>(companyIds.map((c) => [c, 0]));
      const rows = prepared(
        sqlite,
        "SELECT company_id AS c, count(*) AS n FROM schema_changes WHERE acknowledged_at IS NULL GROUP BY company_id",
      ).all() as { c: number; n: number }[];
      for (const r of rows) if (out.has(r.c)) out.set(r.c, r.n);
      return out;
    },
  };
}
