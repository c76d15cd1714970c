/**
 * Prepared INSERT statements derived from the drizzle table definitions, so column
 * names have one source, while the hot path (100k plans) pays only better-sqlite3's cost.
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Sqlite } from "./connection.js";

type Value = string | number | bigint | Buffer | null;

export interface InsertOptions {
  /** Columns (by key) to overwrite when the primary key exists; omit for plain INSERT. */
  upsertKeys?: string[];
}

/** Returns a function that writes one row object (drizzle $inferInsert shape). */
export function inserter<T extends SQLiteTable>(
  sqlite: Sqlite,
  table: T,
  opts: InsertOptions = {},
): (row: T["$inferInsert"]) => void {
  const { name, primaryKeys } = getTableConfig(table);
  const entries = Object.entries(getTableColumns(table));
  const keys = entries.map(([key]) => key);
  const bools = entries.map(([, col]) => col.dataType === "boolean");
  const cols = entries.map(([, col]) => `"${col.name}"`);
  let sql = `INSERT INTO "${name}" (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`;
  if (opts.upsertKeys) {
    const pk = entries.filter(([, c]) => c.primary).map(([, c]) => `"${c.name}"`);
    const target = pk.length ? pk : (primaryKeys[0]?.columns.map((c) => `"${c.name}"`) ?? []);
    const byKey = new Map(entries);
    const sets = opts.upsertKeys.map((k) => {
      const col = byKey.get(k);
      if (!col) throw new Error(`unknown column ${k} of ${name}`);
      return `"${col.name}" = excluded."${col.name}"`;
    });
    sql += ` ON CONFLICT(${target.join(", ")}) DO UPDATE SET ${sets.join(", ")}`;
  }
  const stmt = sqlite.prepare(sql);
  const n = keys.length;
  return (row) => {
    const r = row as Record<string, unknown>;
    const values = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const v = r[keys[i] as string];
      values[i] = v === undefined ? null : bools[i] ? (v === null ? null : v ? 1 : 0) : (v as Value);
    }
    stmt.run(values);
  };
}
