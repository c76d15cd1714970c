/** The observed schema on PostgreSQL: reads for people and syncs, acknowledgements, a run's write. */

import { getTableColumns } from "drizzle-orm";
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
import { schemaChanges, schemaPaths, schemaValues } from "../../../tables/postgres/index.js";
import type { Db, Pool } from "../pool.js";
import { batchInserter, run } from "../sql.js";

async function observed(db: Db, companyId?: number): Promise<ObservedPath[]> {
  const where = companyId === undefined ? "" : "WHERE company_id = $1";
  const args = companyId === undefined ? [] : [companyId];
  const rows = (
    await db.query<PathRow>(`SELECT * FROM schema_paths ${where} ORDER BY company_id, entity, path`, args)
  ).rows;
  const values = valuesByPath(
    (
      await db.query<{ company_id: string; entity: string; path: string; value: string; count: number }>(
        `SELECT company_id, entity, path, value, count FROM schema_values ${where} ORDER BY count DESC, value`,
        args,
      )
    ).rows,
  );
  return rows.map((r) => pathOf(r, values.get(pathKey(Number(r.company_id), r.entity, r.path)) ?? []));
}

const upsertPaths = batchInserter(schemaPaths, {
  upsertKeys: Object.keys(getTableColumns(schemaPaths)).filter(
    (k) => k !== "companyId" && k !== "entity" && k !== "path",
  ),
});
const insertValues = batchInserter(schemaValues);
const insertChanges = batchInserter(schemaChanges, { omit: ["id", "acknowledgedAt"] });
const DROP_VALUES = `DELETE FROM schema_values WHERE company_id = $1
  AND (entity, path) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;
const SEEN = `UPDATE schema_paths SET last_run_id = $2, last_seen_at = $3::timestamptz
  WHERE company_id = $1 AND (entity, path) IN (SELECT * FROM unnest($4::text[], $5::text[]))`;

/** A run's observations, inside its snapshot's transaction: a statement per table, whatever their number. */
export async function writeSchema(
  db: Db,
  companyId: number,
  runId: number,
  at: string,
  w: SchemaWrite,
): Promise<void> {
  await upsertPaths(db, w.paths.map(pathRow));
  const rewritten = w.paths.filter((p) => !p.valuesKept);
  if (rewritten.length) {
    await run(db, DROP_VALUES, [companyId, rewritten.map((p) => p.entity), rewritten.map((p) => p.path)]);
    await insertValues(
      db,
      rewritten.flatMap((p) =>
        p.values.map((v) => ({ companyId, entity: p.entity, path: p.path, value: v.value, count: v.count })),
      ),
    );
  }
  const seen = w.seen ?? [];
  if (seen.length)
    await run(db, SEEN, [companyId, runId, at, seen.map((p) => p.entity), seen.map((p) => p.path)]);
  await insertChanges(
    db,
    w.changes.map((c) => ({ ...c, refused: c.refused ?? null, companyId, runId, detectedAt: at })),
  );
}

export function postgresSchema(pool: Pool): SchemaStore {
  return {
    observed: ({ companyId }) => observed(pool, companyId),
    changes: async (f: SchemaChangeFilter): Promise<SchemaChange[]> => {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (cond: (n: number) => string, v: unknown) => {
        args.push(v);
        where.push(cond(args.length));
      };
      if (f.id !== undefined) add((n) => `id = $${n}`, f.id);
      if (f.companyId !== undefined) add((n) => `company_id = $${n}`, f.companyId);
      if (f.kinds !== undefined) add((n) => `kind = ANY($${n}::text[])`, f.kinds);
      if (f.sinceAt !== undefined) add((n) => `detected_at >= $${n}`, f.sinceAt);
      if (f.sinceRunId !== undefined) add((n) => `run_id >= $${n}`, f.sinceRunId);
      if (f.open) where.push("acknowledged_at IS NULL");
      const { rows } = await pool.query<ChangeRow>(
        `SELECT * FROM schema_changes ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id`,
        args,
      );
      return rows.map(changeOf);
    },
    acknowledge: async (target, at) => {
      if ("id" in target)
        return (
          await run(
            pool,
            "UPDATE schema_changes SET acknowledged_at = $1 WHERE id = $2 AND acknowledged_at IS NULL",
            [at, target.id],
          )
        ).rowCount;
      if (target.companyId === undefined)
        return (
          await run(pool, "UPDATE schema_changes SET acknowledged_at = $1 WHERE acknowledged_at IS NULL", [
            at,
          ])
        ).rowCount;
      return (
        await run(
          pool,
          "UPDATE schema_changes SET acknowledged_at = $1 WHERE company_id = $2 AND acknowledged_at IS NULL",
          [at, target.companyId],
        )
      ).rowCount;
    },
    openChanges: async (companyIds) => {
      const out = new Map<number, number>(companyIds.map((c) => [c, 0]));
      const { rows } = await pool.query<{ c: string; n: string }>(
        "SELECT company_id AS c, count(*) AS n FROM schema_changes WHERE acknowledged_at IS NULL GROUP BY company_id",
      );
      for (const r of rows) if (out.has(Number(r.c))) out.set(Number(r.c), Number(r.n));
      return out;
    },
  };
}
