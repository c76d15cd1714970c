/**
 * The SQLite and PostgreSQL schemas describe one public interface: the same tables and views,
 * with the same column names and nullability, and row types that fit both dialects.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getTableColumns, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { relationsOf } from "../../src/docs/tables-page.js";
import * as pg from "../../src/tables/postgres/index.js";
import { TAS_JSON_FUNCTIONS } from "../../src/tables/postgres/json-functions.js";
import * as sqlite from "../../src/tables/sqlite/index.js";
import { PLAN_CHILD_TABLES, REPORT_CHILD_TABLES } from "../../src/tables/table-names.js";

const ROOT = join(import.meta.dirname, "..", "..");
type Dialect = "sqlite" | "postgres";
type Shape = Record<string, { nullable: boolean }>;
/** The row type read from each table and view of a schema module. */
type Rows<M> = { [K in keyof M]: M[K] extends { $inferSelect: infer R } ? R : never };

/** Each table's columns with their nullability (the walk the table reference is written from). */
function tables(dialect: Dialect): Map<string, Shape> {
  return new Map(
    relationsOf(dialect)
      .filter((r) => r.kind === "table")
      .map((r) => [r.name, Object.fromEntries(r.columns.map((c) => [c.name, { nullable: c.nullable }]))]),
  );
}

/** Each view's column names: a column keeps its name, a computed field (sql`...`.as(name)) its alias. */
function views(dialect: Dialect): Map<string, string[]> {
  return new Map(
    relationsOf(dialect)
      .filter((r) => r.kind === "view")
      .map((r) => [r.name, r.columns.map((c) => c.name)]),
  );
}

describe("the SQLite and PostgreSQL schemas", () => {
  const sqliteTables = tables("sqlite");
  const pgTables = tables("postgres");

  it("have the same tables", () => {
    expect(sqliteTables.size).toBeGreaterThan(20);
    expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
  });

  it.each([...sqliteTables.keys()])("give %s the same columns with the same nullability", (name) => {
    expect(pgTables.get(name)).toEqual(sqliteTables.get(name));
  });

  it("have both views, with the same columns", () => {
    const sqliteViews = views("sqlite");
    const pgViews = views("postgres");
    expect([...sqliteViews.keys()].sort()).toEqual([
      "v_plan_changes",
      "v_plan_schedule",
      "v_plan_versions",
      "v_plans",
      "v_rejected_now",
      "v_report_changes",
      "v_report_plan_coverage",
      "v_report_versions",
      "v_schema",
    ]);
    expect([...pgViews.keys()].sort()).toEqual([...sqliteViews.keys()].sort());
    for (const [name, columns] of sqliteViews) expect(pgViews.get(name)).toEqual(columns);
  });

  it("create the PostgreSQL functions the views call in a migration, as json-functions.ts writes them", () => {
    const dir = join(ROOT, "migrations", "postgres");
    const migrations = readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
    expect(TAS_JSON_FUNCTIONS.length).toBe(2);
    for (const fn of TAS_JSON_FUNCTIONS) expect(migrations).toContain(`${fn};--> statement-breakpoint`);
  });

  it("read rows of the same TypeScript types, under the same property names", () => {
    // Checked by the type checker (npm test runs it); the property names at run time too.
    expectTypeOf<Rows<typeof pg>>().toEqualTypeOf<Rows<typeof sqlite>>();
    const keys = (mod: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(mod)
          .filter(([, t]) => is(t, SQLiteTable) || is(t, PgTable))
          .map(([name, t]) => [name, Object.keys(getTableColumns(t as SQLiteTable))]),
      );
    expect(keys(pg)).toEqual(keys(sqlite));
  });
});

describe("the lists of child tables", () => {
  it.each<Dialect>(["sqlite", "postgres"])(
    "name every table of %s keyed by plan_id or report_id, and only those",
    (dialect) => {
      const all = tables(dialect);
      const keyedBy = (key: string) =>
        [...all].filter(([name, cols]) => key in cols && !name.endsWith("_versions")).map(([name]) => name);
      expect([...PLAN_CHILD_TABLES].sort()).toEqual(
        keyedBy("plan_id")
          .filter((n) => n.startsWith("plan_"))
          .sort(),
      );
      expect([...REPORT_CHILD_TABLES].sort()).toEqual(keyedBy("report_id").sort());
    },
  );
});
