/**
 * The tables and views of each dialect's drizzle schema as plain shapes (names, columns, types,
 * keys): what the table reference, the dbt sources and the export read.
 */
import { is } from "drizzle-orm";
import { PgTable, PgView, getTableConfig as pgTable, getViewConfig as pgView } from "drizzle-orm/pg-core";
import { getTableConfig, getViewConfig, SQLiteTable, SQLiteView } from "drizzle-orm/sqlite-core";
import * as pg from "./postgres/index.js";
import * as sqlite from "./sqlite/index.js";

export interface ColumnShape {
  name: string;
  type: string;
  primary: boolean;
  identity: boolean;
  /** May hold NULL (a view's computed field: always, as far as the schema says). */
  nullable: boolean;
}

export interface Relation {
  name: string;
  kind: "table" | "view";
  columns: ColumnShape[];
  /** Columns of a composite primary key. */
  primaryKey: string[];
}

type AnyColumn = {
  name: string;
  primary: boolean;
  notNull: boolean;
  getSQLType(): string;
  generatedIdentity?: unknown;
};

/** A computed field of a view (sql`...`.mapWith(column).as(name)): typed like the column it maps with. */
type Computed = { fieldAlias: string; sql: { decoder?: Partial<AnyColumn> } };

const shape = (c: AnyColumn | Computed): ColumnShape => {
  if ("fieldAlias" in c) {
    const like = c.sql.decoder;
    return {
      name: c.fieldAlias,
      type: like?.getSQLType?.() ?? "?",
      primary: false,
      identity: false,
      nullable: true,
    };
  }
  return {
    name: c.name,
    type: c.getSQLType(),
    primary: c.primary,
    identity: c.generatedIdentity !== undefined,
    nullable: !c.notNull,
  };
};

/** The tables and views of one dialect's drizzle schema, as plain shapes. */
export function relationsOf(dialect: "sqlite" | "postgres"): Relation[] {
  const out: Relation[] = [];
  for (const value of Object.values(dialect === "sqlite" ? sqlite : pg)) {
    if (is(value, SQLiteTable) || is(value, PgTable)) {
      const c = is(value, SQLiteTable) ? getTableConfig(value) : pgTable(value as PgTable);
      out.push({
        name: c.name,
        kind: "table",
        columns: (c.columns as AnyColumn[]).map(shape),
        primaryKey: c.primaryKeys[0]?.columns.map((col) => col.name) ?? [],
      });
    } else if (is(value, SQLiteView) || is(value, PgView)) {
      const c = is(value, SQLiteView) ? getViewConfig(value) : pgView(value as PgView);
      out.push({
        name: c.name,
        kind: "view",
        columns: Object.values(c.selectedFields as Record<string, AnyColumn | Computed>).map(shape),
        primaryKey: [],
      });
    }
  }
  return out;
}
