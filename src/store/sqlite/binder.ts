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

type Column = ReturnType<typeof getTableColumns>[string];

/** The source of a column's bound value, read by `read` (default: the row's property). */
const boundValue = (key: string, col: Column, read = `r[${JSON.stringify(key)}]`): string =>
  col.dataType === "boolean" ? `toBool(${read})` : `${read} ?? null`;

/**
 * The writer of `table`. `given` names columns (by key) that the row does not carry; the writer
 * takes their values as arguments after the row. `conflict` ends the INSERT (ON CONFLICT ...).
 * `textBytes` names text columns that may be given as UTF-8 bytes (a Buffer): stored as the
 * text they are (`CAST(? AS TEXT)`), without a JavaScript string made of them first.
 */
export function compileInsert<R>(
  sqlite: Sqlite,
  table: SQLiteTable,
  given: readonly string[] = [],
  conflict = "",
  textBytes: readonly string[] = [],
): RowWriter<R> {
  const { name } = getTableConfig(table);
  const entries = Object.entries(getTableColumns(table));
  const missing = given.filter((k) => !entries.some(([key]) => key === k));
  if (missing.length) throw new Error(`${name} has no column ${missing.join(", ")}`);
  const args = entries.map(([key, col]) => {
    const g = given.indexOf(key);
    return g >= 0 ? boundValue(key, col, `g${g}`) : boundValue(key, col);
  });
  const columns = entries.map(([, col]) => `"${col.name}"`);
  const unknownBytes = textBytes.filter(
    (k) => !entries.some(([key, col]) => key === k && col.dataType === "string"),
  );
  if (unknownBytes.length) throw new Error(`${name} has no text column ${unknownBytes.join(", ")}`);
  const places = entries.map(([key]) => (textBytes.includes(key) ? "CAST(? AS TEXT)" : "?"));
  const stmt = sqlite.prepare(
    `INSERT INTO "${name}" (${columns.join(", ")}) VALUES (${places.join(", ")})${conflict ? ` ${conflict}` : ""}`,
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
  const args = entries.map(([key, col]) => boundValue(key, col));
  const stmt = sqlite.prepare(`UPDATE "${name}" SET ${sets} WHERE "id" = ?`);
  // Compiled once per table, from our own schema: no outside input reaches the source.
  return new Function("stmt", "toBool", `return (r) => stmt.run(${[...args, 'r["id"]'].join(", ")});`)(
    stmt,
    toBool,
  ) as (row: R) => BetterSqlite3.RunResult;
}

/** Rows of one table inserted many to a statement (see compileBatchedInsert). */
export interface BatchedInsert<R> {
  /** Adds a row; rows are written once a statement's worth is pending, and by `flush`. */
  add(row: R): void;
  /** Writes the pending rows. */
  flush(): void;
}

/**
 * A table's INSERT of `rows` rows in one statement, filled from row objects like compileInsert's
 * writers: most of a small row's insert is the statement's own overhead (binding, stepping,
 * resetting), which this pays once per `rows` rows: about half the time of one statement per row
 * (the plans' child tables, 100k plans). Not for a table with a secondary index: SQLite then
 * inserts a multi-row VALUES 2.5 times slower than row by row (plan_scenarios, whose index on
 * scenario_id takes keys in random order: 2.2 s against 0.9 s for its 400k rows), so such a
 * table gets one statement per row behind the same interface. The rows left at `flush` go one
 * statement each. Nothing reads the table before `flush`: the caller flushes first whenever it
 * deletes or updates rows of the table.
 */
export function compileBatchedInsert<R>(sqlite: Sqlite, table: SQLiteTable, rows = 32): BatchedInsert<R> {
  const { name, indexes } = getTableConfig(table);
  if (indexes.length > 0) return { add: compileInsert<R>(sqlite, table), flush: () => {} };
  const entries = Object.entries(getTableColumns(table));
  const cols = entries.length;
  const columns = entries.map(([, col]) => `"${col.name}"`).join(", ");
  const tuple = `(${entries.map(() => "?").join(", ")})`;
  const many = sqlite.prepare(
    `INSERT INTO "${name}" (${columns}) VALUES ${Array(rows).fill(tuple).join(", ")}`,
  );
  const one = sqlite.prepare(`INSERT INTO "${name}" (${columns}) VALUES ${tuple}`);
  const buf: unknown[] = new Array(rows * cols).fill(null);
  const state = { n: 0 };
  const fills = entries.map(([key, col], j) => `buf[i + ${j}] = ${boundValue(key, col)};`);
  const args = entries.map((_, j) => `buf[i + ${j}]`).join(", ");
  // Compiled once per table, from our own schema: no outside input reaches the source.
  return new Function(
    "buf",
    "state",
    "many",
    "one",
    "toBool",
    `return {
      add: (r) => {
        let i = state.n;
        ${fills.join("\n        ")}
        i += ${cols};
        if (i === ${rows * cols}) {
          many.run(buf);
          i = 0;
        }
        state.n = i;
      },
      flush: () => {
        for (let i = 0; i < state.n; i += ${cols}) one.run(${args});
        state.n = 0;
      },
    };`,
  )(buf, state, many, one, toBool) as BatchedInsert<R>;
}
