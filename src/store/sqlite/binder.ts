/**
 * Positional values for a table's prepared INSERT, straight from a row object: one function per
 * table, compiled once from the drizzle columns (so column names have one source), that reads
 * each column's property by name. A generic loop over the keys cost a full sync more than the
 * inserts themselves (a keyed load per column, megamorphic); a compiled reader costs what a
 * hand-written `[r.planId, r.dayNumber, r.dayName]` costs.
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";

type Value = string | number | bigint | Buffer | null;

/** A row's values in column order; `given` columns come as the extra arguments, in their order. */
export type Binder<R> = (row: R, ...given: Value[]) => Value[];

const toBool = (v: unknown): Value => (v === null || v === undefined ? null : v ? 1 : 0);
const orNull = (v: unknown): Value => (v === undefined ? null : (v as Value));

/**
 * The binder of `table`, and its INSERT's SQL. `given` names columns (by key) that the row does
 * not carry; the binder takes their values as arguments after the row.
 */
export function compileInsert<R>(
  table: SQLiteTable,
  given: readonly string[] = [],
  conflict = "",
): { sql: string; bind: Binder<R>; columns: string[] } {
  const entries = Object.entries(getTableColumns(table));
  const reads = entries.map(([key, col]) => {
    const g = given.indexOf(key);
    const read = g >= 0 ? `g${g}` : `r[${JSON.stringify(key)}]`;
    return col.dataType === "boolean" ? `toBool(${read})` : `orNull(${read})`;
  });
  const missing = given.filter((k) => !entries.some(([key]) => key === k));
  if (missing.length) throw new Error(`${getTableConfig(table).name} has no column ${missing.join(", ")}`);
  // Compiled once per table at start-up, from our own schema: no outside input reaches it.
  const params = ["r", ...given.map((_, i) => `g${i}`)].join(", ");
  const bind = new Function("toBool", "orNull", `return (${params}) => [${reads.join(", ")}];`)(
    toBool,
    orNull,
  ) as Binder<R>;
  const columns = entries.map(([, col]) => col.name);
  const sql = `INSERT INTO "${getTableConfig(table).name}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})${conflict ? ` ${conflict}` : ""}`;
  return { sql, bind, columns };
}
