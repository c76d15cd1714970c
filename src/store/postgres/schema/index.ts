/** The observed schema on PostgreSQL: reads for people and syncs, acknowledgements, a run's write. */
import type {
  ObservedPath,
  SchemaChange,
  SchemaChangeFilter,
  SchemaStore,
  SchemaWrite,
} from "../../port-schema.js";
import {
  type ChangeRow,
  changeOf,
  PATH_COLUMNS,
  type PathRow,
  pathKey,
  pathOf,
  pathValues,
  valuesByPath,
} from "../../schema-rows.js";
import type { Db, Pool } from "../pool.js";
import { run } from "../sql.js";

export async function observed(db: Db, companyId?: number): Promise<ObservedPath[]> {
  const where = companyId === undefined ? "" : "WHERE company_id = $1";
  const args = companyId === undefined ? [] : [companyId];
  const rows = (
    await db.query<PathRow>(
      `SELECT ${PATH_COLUMNS} FROM schema_paths ${where} ORDER BY company_id, entity, path`,
      args,
    )
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

/** A run's observations, inside its snapshot's transaction. */
export async function writeSchema(
  db: Db,
  companyId: number,
  runId: number,
  at: string,
  w: SchemaWrite,
): Promise<void> {
  const cols = PATH_COLUMNS.split(",").map((c) => c.trim());
  const upsert = `INSERT INTO schema_paths (${PATH_COLUMNS}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})
    ON CONFLICT (company_id, entity, path) DO UPDATE SET ${cols
      .slice(3)
      .map((c) => `${c} = excluded.${c}`)
      .join(", ")}`;
  for (const p of w.paths) {
    await run(db, upsert, pathValues(p));
    await run(db, "DELETE FROM schema_values WHERE company_id = $1 AND entity = $2 AND path = $3", [
      p.companyId,
      p.entity,
      p.path,
    ]);
    if (p.values.length)
      await run(
        db,
        `INSERT INTO schema_values (company_id, entity, path, value, count)
         SELECT $1, $2, $3, v, c FROM unnest($4::text[], $5::int[]) AS u(v, c)`,
        [p.companyId, p.entity, p.path, p.values.map((v) => v.value), p.values.map((v) => v.count)],
      );
  }
  if (w.changes.length)
    await run(
      db,
      `INSERT INTO schema_changes (company_id, run_id, detected_at, entity, path, kind, before, after, example_id)
       SELECT $1, $2, $3, e, p, k, b, a, x FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])
         AS u(e, p, k, b, a, x)`,
      [
        companyId,
        runId,
        at,
        w.changes.map((c) => c.entity),
        w.changes.map((c) => c.path),
        w.changes.map((c) => c.kind),
        w.changes.map((c) => c.before),
        w.changes.map((c) => c.after),
        w.changes.map((c) => c.exampleId),
      ],
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
      if (f.companyId !== undefined) add((n) => `company_id = $${n}`, f.companyId);
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
