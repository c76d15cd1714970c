/**
 * A table's prepared INSERT, run straight from a row object: one function per table, compiled
 * once from the drizzle columns (so column names have one source), that passes each column's
 * property as its own argument: `(r) => stmt.run(r.planId ?? null, r.dayNumber ?? null, ...)`.
 * A generic loop over the keys cost a full sync more than the inserts themselves (a keyed load
 * per column, megamorphic), and handing better-sqlite3 an array of values costs a third more
 * than separate arguments (bench:sync's profile).
 */
import type BetterSqlite3 from "better-sqlite3";
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Sqlite } from "./connection.js";

type Value = string | number | bigint | Buffer | null;

/** Writes one row; `given` columns come as the extra arguments, in their order. */
export type RowWriter<R> = (row: R, ...given: Value[]) => BetterSqlite3.RunResult;

const toBool = (v: unknown): Value => (v === null || v === undefined ? null : v ? 1 : 0);

/**
 * The writer of `table`. `given` names columns (by key) that the row does not carry; the writer
 * takes their values as arguments after the row. `conflict` ends the INSERT (ON CONFLICT ...).
 */
export function compileInsert<R>(
  sqlite: Sqlite,
  table: SQLiteTable,
  given: readonly string[] = [],
  conflict = "",
): RowWriter<R> {
  const { name } = getTableConfig(table);
  const entries = Object.entries(getTableColumns(table));
  const missing = given.filter((k) => !entries.some(([key]) => key === k));
  if (missing.length) throw new Error(`${name} has no column ${missing.join(", ")}`);
  const args = entries.map(([key, col]) => {
    const g = given.indexOf(key);
    const read = g >= 0 ? `g${g}` : `r[${JSON.stringify(key)}]`;
    return col.dataType === "boolean" ? `toBool(${read})` : `${read} ?? null`;
  });
  const columns = entries.map(([, col]) => `"${col.name}"`);
  const stmt = sqlite.prepare(
    `INSERT INTO "${name}" (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})${conflict ? ` ${conflict}` : ""}`,
  );
  const params = ["r", ...given.map((_, i) => `g${i}`)].join(", ");
  // Compiled once per table, from our own schema: no outside input reaches the source.
  return new Function("stmt", "toBool", `return (${params}) => stmt.run(${args.join(", ")});`)(
    stmt,
    toBool,
  ) as RowWriter<R>;
}

/** `"col" = excluded."col"` for every column of `table` but `keep` (by key): an upsert's SET. */
export function overwrite(table: SQLiteTable, keep: readonly string[]): string {
  return Object.entries(getTableColumns(table))
    .filter(([key]) => !keep.includes(key))
    .map(([, col]) => `"${col.name}" = excluded."${col.name}"`)
    .join(", ");
}

/**
 * An UPDATE of a row's columns but `keep` (by key), by its primary key `id`, run straight from a
 * row object like compileInsert's writers.
 */
export function compileUpdate<R extends { id?: unknown }>(
  sqlite: Sqlite,
  table: SQLiteTable,
  keep: readonly string[],
): (row: R) => BetterSqlite3.RunResult {
  const { name } = getTableConfig(table);
  const entries = Object.entries(getTableColumns(table)).filter(
    ([key]) => key !== "id" && !keep.includes(key),
  );
  const sets = entries.map(([, col]) => `"${col.name}" = ?`).join(", ");
  const args = entries.map(([key, col]) => {
    const read = `r[${JSON.stringify(key)}]`;
    return col.dataType === "boolean" ? `toBool(${read})` : `${read} ?? null`;
  });
  const stmt = sqlite.prepare(`UPDATE "${name}" SET ${sets} WHERE "id" = ?`);
  // Compiled once per table, from our own schema: no outside input reaches the source.
  return new Function("stmt", "toBool", `return (r) => stmt.run(${[...args, 'r["id"]'].join(", ")});`)(
    stmt,
    toBool,
  ) as (row: R) => BetterSqlite3.RunResult;
}
