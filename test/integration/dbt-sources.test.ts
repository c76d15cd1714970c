/**
 * The dbt sources against a migrated database of each store: every table, view and column the
 * file names exists, and what dbt would run for it (freshness, unique, not_null,
 * relationships) runs on the store and holds on synced rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { dbtSources } from "../../src/analytics/dbt-sources.js";
import { toYaml } from "../../src/analytics/yaml.js";
import type { Store } from "../../src/store/port.js";
import { applyOps, insert } from "../support/snapshots.js";
import { type Sql, sqlOn, storeKinds } from "../support/stores.js";

type Test = string | { relationships: { to: string; field: string } };
type Table = {
  name: string;
  identifier?: string;
  loaded_at_field?: string;
  freshness?: { filter?: string };
  columns?: { name: string; data_tests?: Test[] }[];
};

/** dbt's generic tests as the count of rows that fail them (dbt's own SQL, in short). */
function failing(table: string, column: string, test: Test): string {
  if (test === "unique")
    return `SELECT count(*) FROM (SELECT ${column} FROM ${table} WHERE ${column} IS NOT NULL GROUP BY ${column} HAVING count(*) > 1) d`;
  if (test === "not_null") return `SELECT count(*) FROM ${table} WHERE ${column} IS NULL`;
  if (typeof test === "object") {
    const parent = /source\('[^']+', '([^']+)'\)/.exec(test.relationships.to)?.[1];
    return `SELECT count(*) FROM ${table} c WHERE c.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${parent} p WHERE p.${test.relationships.field} = c.${column})`;
  }
  throw new Error(`no SQL for the test ${test}`);
}

async function columnsOf(sql: Sql, relation: string): Promise<string[]> {
  const rows =
    sql.dialect === "sqlite"
      ? await sql.rows<{ name: string }>("SELECT name FROM pragma_table_info(?)", relation)
      : await sql.rows<{ name: string }>(
          "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ?",
          relation,
        );
  return rows.map((r) => r.name);
}

describe.each(storeKinds())("dbt sources on $name", (kind) => {
  let store: Store;
  let sql: Sql;
  let tables: Table[];
  beforeAll(async () => {
    store = await kind.open(await kind.fresh());
    sql = sqlOn(kind, store);
    await applyOps(store, "2025-03-01T10:00:00.000Z", () => [insert(1, "one"), insert(2, "two")]);
    await applyOps(store, "2025-03-01T11:00:00.000Z", () => [insert(3, "three", 99)], { companyId: 99 });
    const doc = dbtSources({
      dialect: kind.name,
      sourceName: "tas_sync",
      schema: kind.name === "sqlite" ? "main" : "public",
      companies: [
        { companyId: 5251, everyMs: 900_000, staleAfterMs: 2_700_000 },
        { companyId: 99, everyMs: 3_600_000, staleAfterMs: 10_800_000 },
      ],
      reports: true,
    });
    tables = (parse(toYaml(doc)) as { sources: { tables: Table[] }[] }).sources[0]?.tables ?? [];
  });
  afterAll(async () => {
    await store.close();
    await kind.cleanup();
  });

  it("names only tables, views and columns that exist in the migrated database", async () => {
    expect(tables.length).toBeGreaterThan(20);
    for (const t of tables) {
      const present = await columnsOf(sql, t.identifier ?? t.name);
      expect(present.length, `${t.identifier ?? t.name} exists`).toBeGreaterThan(0);
      for (const c of t.columns ?? []) expect(present, `${t.name}.${c.name}`).toContain(c.name);
      if (t.loaded_at_field) expect(present, `${t.name} loaded_at_field`).toContain(t.loaded_at_field);
    }
  });

  it("has a freshness query that runs and finds the last load of each company", async () => {
    const checked = tables.filter((t) => t.loaded_at_field);
    expect(checked.map((t) => t.name)).toEqual(
      expect.arrayContaining(["sync_runs", "v_plans", "scheduled_reports", "sync_runs_company_5251"]),
    );
    const maxOf = (t: Table) =>
      sql.scalar<string | null>(
        `SELECT max(${t.loaded_at_field}) AS m FROM ${t.identifier ?? t.name} WHERE ${t.freshness?.filter ?? "1 = 1"}`,
      );
    const at = async (name: string) => {
      const t = tables.find((x) => x.name === name);
      if (!t) throw new Error(`no ${name}`);
      const m = await maxOf(t);
      return m === null ? null : new Date(m).toISOString();
    };
    expect(await at("sync_runs_company_5251")).toBe("2025-03-01T10:00:00.000Z");
    expect(await at("sync_runs_company_99")).toBe("2025-03-01T11:00:00.000Z");
    expect(await at("sync_runs")).toBe("2025-03-01T11:00:00.000Z");
    expect(await at("v_plans")).toBe("2025-03-01T11:00:00.000Z");
    expect(await at("scheduled_reports")).toBeNull();
  });

  it("has data tests that run on the store and pass on synced rows", async () => {
    let ran = 0;
    for (const t of tables)
      for (const c of t.columns ?? [])
        for (const test of c.data_tests ?? []) {
          const n = Number(await sql.scalar(failing(t.identifier ?? t.name, c.name, test)));
          expect(n, `${t.name}.${c.name} ${JSON.stringify(test)}`).toBe(0);
          ran++;
        }
    expect(ran).toBeGreaterThan(40);
    // The tests can fail: a child row whose plan does not exist breaks the relationship.
    await sql.rows(
      "INSERT INTO plan_days_of_week (plan_id, day_number, day_name) VALUES (424242, 1, 'SUNDAY') RETURNING plan_id",
    );
    const days = tables
      .find((t) => t.name === "plan_days_of_week")
      ?.columns?.find((c) => c.name === "plan_id");
    const rel = days?.data_tests?.find((x) => typeof x === "object");
    expect(rel).toBeDefined();
    expect(Number(await sql.scalar(failing("plan_days_of_week", "plan_id", rel as Test)))).toBe(1);
  });
});
