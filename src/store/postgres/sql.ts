/**
 * Statements derived from the drizzle tables, so column names have one source: select lists
 * (rows read whole come back in $inferSelect shape) and batched inserts that send a column per
 * parameter, `INSERT ... SELECT * FROM unnest($1::bigint[], $2::text[], ...)`: one round trip
 * and one statement for hundreds of rows, and the only batched way to upsert. Rows that cannot
 * conflict go by COPY (copy.ts), which costs both sides less (bench:sync --store postgres).
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { QueryResultRow } from "pg";
import { type Db, isoToPg } from "./pool.js";

const names = new Map<string, string>();

/**
 * Runs `text` as a named prepared statement: each connection parses it once. The name comes
 * from the text, so one text is one statement everywhere.
 */
export async function run<R extends QueryResultRow = QueryResultRow>(
  db: Db,
  text: string,
  values: unknown[] = [],
): Promise<{ rows: R[]; rowCount: number }> {
  let name = names.get(text);
  if (name === undefined) {
    name = `tas_${names.size}`;
    names.set(text, name);
  }
  const result = await db.query<R>({ name, text, values });
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** The rows' first column. */
export async function pluck<T>(db: Db, text: string, values: unknown[] = []): Promise<T[]> {
  const { rows } = await run(db, text, values);
  return rows.map((r) => Object.values(r)[0] as T);
}

export interface BatchOptions {
  /** Columns (by key) to overwrite when the primary key exists; omit for plain INSERT. */
  upsertKeys?: string[];
  /** Columns (by key) to leave to their defaults (generated ids). */
  omit?: string[];
}

/**
 * Returns a function that writes many row objects ($inferInsert shape) in one statement. Keys
 * are optional: the neutral row types come from the SQLite tables, whose integer primary keys
 * are optional on insert; a missing NOT NULL value still fails in the database.
 */
export function batchInserter<T extends PgTable>(
  table: T,
  opts: BatchOptions = {},
): (db: Db, rows: readonly Partial<T["$inferInsert"]>[]) => Promise<number> {
  const { name, primaryKeys } = getTableConfig(table);
  const entries = Object.entries(getTableColumns(table)).filter(([key]) => !opts.omit?.includes(key));
  const keys = entries.map(([key]) => key);
  const timestamps = entries.map(([, col]) => col.getSQLType().startsWith("timestamp"));
  const cols = entries.map(([, col]) => `"${col.name}"`);
  const arrays = entries.map(([, col], i) => `$${i + 1}::${col.getSQLType()}[]`);
  let text = `INSERT INTO "${name}" (${cols.join(", ")}) SELECT * FROM unnest(${arrays.join(", ")})`;
  if (opts.upsertKeys) {
    const all = Object.entries(getTableColumns(table));
    const pk = all.filter(([, c]) => c.primary).map(([, c]) => `"${c.name}"`);
    const target = pk.length ? pk : (primaryKeys[0]?.columns.map((c) => `"${c.name}"`) ?? []);
    const byKey = new Map(all);
    const sets = opts.upsertKeys.map((k) => {
      const col = byKey.get(k);
      if (!col) throw new Error(`unknown column ${k} of ${name}`);
      return `"${col.name}" = excluded."${col.name}"`;
    });
    text += ` ON CONFLICT (${target.join(", ")}) DO UPDATE SET ${sets.join(", ")}`;
  }
  return async (db, rows) => {
    if (rows.length === 0) return 0;
    const values = keys.map((key, i) =>
      rows.map((row) => {
        const v = (row as Record<string, unknown>)[key];
        return timestamps[i] ? isoToPg(v as string | null | undefined) : (v ?? null);
      }),
    );
    return (await run(db, text, values)).rowCount;
  };
}
