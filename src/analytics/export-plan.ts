/**
 * What `tas-sync export` writes (pure): the relations, their columns with real types (the
 * PostgreSQL schema's: 64-bit ids, booleans, timestamps), the SQL that reads them from either
 * store, and each stored value as the value of its type (SQLite keeps flags as 0/1 and times as
 * ISO 8601 text).
 */

import { TABLE_DOCS, VIEW_DOCS } from "../tables/descriptions.js";
import { relationsOf } from "../tables/relations.js";
import { closestName } from "../text/suggest.js";

export type DuckType = "BIGINT" | "INTEGER" | "BOOLEAN" | "TIMESTAMPTZ" | "DOUBLE" | "VARCHAR";

export interface ExportColumn {
  name: string;
  type: DuckType;
}

export interface ExportRelation {
  name: string;
  kind: "table" | "view";
  columns: ExportColumn[];
}

/** The DuckDB type of a PostgreSQL column type of the schema. */
export function duckType(pgType: string): DuckType {
  if (pgType === "bigint") return "BIGINT";
  if (pgType === "integer" || pgType === "smallint") return "INTEGER";
  if (pgType === "boolean") return "BOOLEAN";
  if (pgType.startsWith("timestamp")) return "TIMESTAMPTZ";
  if (pgType === "real" || pgType === "double precision" || pgType.startsWith("numeric")) return "DOUBLE";
  return "VARCHAR";
}

/**
 * Every documented table and view (tables first, in the table reference's order), or the ones
 * `only` names. Throws RangeError naming an unknown one (with the closest name).
 */
export function exportRelations(only?: readonly string[]): ExportRelation[] {
  const shapes = new Map(relationsOf("postgres").map((r) => [r.name, r]));
  const names = [...Object.keys(TABLE_DOCS), ...Object.keys(VIEW_DOCS)].filter((n) => shapes.has(n));
  for (const name of only ?? []) {
    if (!names.includes(name)) {
      const close = closestName(name, names);
      throw new RangeError(
        `no table or view "${name}"${close ? ` (did you mean ${close}?)` : ""}; see docs/reference/tables.md`,
      );
    }
  }
  const chosen = only ? names.filter((n) => only.includes(n)) : names;
  return chosen.map((name) => {
    const shape = shapes.get(name) as NonNullable<ReturnType<typeof shapes.get>>;
    return {
      name,
      kind: shape.kind,
      columns: shape.columns.map((c) => ({ name: c.name, type: duckType(c.type) })),
    };
  });
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The SELECT that reads a relation from the store, columns in the schema's order. */
export function selectSql(r: ExportRelation): string {
  return `SELECT ${r.columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(r.name)}`;
}

/** The CREATE TABLE of a relation in DuckDB (a view is written as a table of its rows). */
export function createSql(r: ExportRelation): string {
  return `CREATE TABLE ${quote(r.name)} (${r.columns.map((c) => `${quote(c.name)} ${c.type}`).join(", ")})`;
}

/** A stored value that does not read as its column's type (written as NULL, and counted). */
export const UNREADABLE = Symbol("unreadable");

/** A cell as DuckDB takes it: TIMESTAMPTZ as microseconds since the epoch (bigint). */
export type Cell = null | boolean | number | bigint | string | typeof UNREADABLE;

/** One stored value (from either store) as the value of `type`. */
export function cell(value: unknown, type: DuckType): Cell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "BOOLEAN":
      if (typeof value === "boolean") return value;
      if (value === 0 || value === 0n) return false;
      if (value === 1 || value === 1n) return true;
      return UNREADABLE;
    case "BIGINT":
      if (typeof value === "bigint") return value;
      if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
      if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
      return UNREADABLE;
    case "INTEGER":
      if (typeof value === "number" && Number.isInteger(value)) return value;
      if (typeof value === "bigint" && value >= -(2n ** 31n) && value < 2n ** 31n) return Number(value);
      return UNREADABLE;
    case "DOUBLE":
      if (typeof value === "number") return value;
      if (typeof value === "bigint") return Number(value);
      return UNREADABLE;
    case "TIMESTAMPTZ": {
      const ms =
        value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : Number.NaN;
      return Number.isFinite(ms) ? BigInt(ms) * 1000n : UNREADABLE;
    }
    case "VARCHAR":
      if (typeof value === "string") return value;
      if (Buffer.isBuffer(value)) return value.toString("utf8");
      return String(value);
  }
}
