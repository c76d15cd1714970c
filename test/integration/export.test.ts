/**
 * `tas-sync export` on each store: the Parquet files and the DuckDB database read back through
 * DuckDB have every row of the source, the real types, and the values of sampled rows.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportStore } from "../../src/analytics/export.js";
import { exportRelations } from "../../src/analytics/export-plan.js";
import type { Store } from "../../src/store/port.js";
import { applyOps, insert, update } from "../support/snapshots.js";
import { type Sql, sqlOn, storeKinds } from "../support/stores.js";

/** Rows of a DuckDB query as plain objects (BIGINT as bigint, TIMESTAMPTZ as ISO text). */
async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(":memory:");
  const c = await instance.connect();
  try {
    await c.run("SET TimeZone = 'UTC'");
    const reader = await c.runAndReadAll(sql);
    return reader.getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

describe.each(storeKinds())("export from $name", (kind) => {
  let store: Store;
  let sql: Sql;
  const dir = mkdtempSync(join(tmpdir(), "tas-export-"));
  const relations = exportRelations();
  beforeAll(async () => {
    store = await kind.open(await kind.fresh());
    sql = sqlOn(kind, store);
    await applyOps(store, "2025-03-01T10:00:00.000Z", () => [
      insert(1, "one"),
      insert(2, "two ' \" ünïcode"),
      insert(3, "three"),
    ]);
    await applyOps(store, "2025-03-02T10:00:00.000Z", () => [update(2, "two, renamed")]);
    await exportStore({ store, relations, format: "parquet", out: join(dir, "pq") });
    await exportStore({ store, relations, format: "duckdb", out: join(dir, "m.duckdb") });
  });
  afterAll(async () => {
    await store.close();
    await kind.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes one Parquet file per table and view, and nothing else", () => {
    expect(readdirSync(join(dir, "pq")).sort()).toEqual(relations.map((r) => `${r.name}.parquet`).sort());
    expect(existsSync(join(dir, "m.duckdb"))).toBe(true);
    expect(existsSync(join(dir, "m.duckdb.partial"))).toBe(false);
  });

  it("has every row of every table and view, in both formats", async () => {
    for (const r of relations) {
      const source = Number(await sql.scalar(`SELECT count(*) FROM ${r.name}`));
      const [pq] = await duck(
        `SELECT count(*) AS n FROM read_parquet('${join(dir, "pq", `${r.name}.parquet`)}')`,
      );
      const [db] = await duck(
        `ATTACH '${join(dir, "m.duckdb")}' AS m (READ_ONLY); SELECT count(*) AS n FROM m.${r.name}`,
      );
      expect([Number(pq?.n), Number(db?.n)], r.name).toEqual([source, source]);
    }
    expect(Number(await sql.scalar("SELECT count(*) FROM plan_versions"))).toBe(4);
  });

  it.each(["parquet", "duckdb"])(
    "writes real types in %s: BIGINT ids, BOOLEAN flags, timestamps",
    async (format) => {
      const from = format === "parquet" ? `read_parquet('${join(dir, "pq", "plans.parquet")}')` : `m.plans`;
      const attach = format === "duckdb" ? `ATTACH '${join(dir, "m.duckdb")}' AS m (READ_ONLY); ` : "";
      const types = await duck(`${attach}DESCRIBE SELECT * FROM ${from}`);
      const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.column_type]));
      expect(typeOf).toMatchObject({
        id: "BIGINT",
        project_id: "BIGINT",
        enabled: "BOOLEAN",
        group_plan: "BOOLEAN",
        first_seen_at: "TIMESTAMP WITH TIME ZONE",
        period_start_at: "TIMESTAMP WITH TIME ZONE",
        plan_name: "VARCHAR",
      });
    },
  );

  it("carries the sampled values exactly (names, 64-bit ids, flags, millisecond times, history)", async () => {
    const plans = await duck(
      `SELECT id, project_id, plan_name, enabled, group_plan, period_start_at, first_seen_at, seen_at, deleted_at
       FROM read_parquet('${join(dir, "pq", "plans.parquet")}') ORDER BY id`,
    );
    const source = await sql.rows<Record<string, unknown>>(
      "SELECT id, project_id, plan_name, enabled, group_plan, period_start_at, first_seen_at, seen_at FROM plans ORDER BY id",
    );
    expect(
      plans.map((p) => ({
        ...p,
        period_start_at: iso(p.period_start_at),
        first_seen_at: iso(p.first_seen_at),
        seen_at: iso(p.seen_at),
      })),
    ).toEqual(
      source.map((s) => ({
        id: BigInt(s.id as number),
        project_id: BigInt(s.project_id as number),
        plan_name: s.plan_name,
        enabled: Boolean(s.enabled),
        group_plan: Boolean(s.group_plan),
        period_start_at: s.period_start_at,
        first_seen_at: s.first_seen_at,
        seen_at: s.seen_at,
        deleted_at: null,
      })),
    );
    expect(plans[1]).toMatchObject({ plan_name: "two, renamed", project_id: 3_000_000_002n, enabled: true });
    expect(iso(plans[0]?.period_start_at)).toBe("2025-01-01T08:30:00.250Z");
    const versions = await duck(
      `ATTACH '${join(dir, "m.duckdb")}' AS m (READ_ONLY);
       SELECT id, valid_from, valid_to, raw_json FROM m.v_plan_versions WHERE id = 2 ORDER BY valid_from`,
    );
    expect(versions.map((v) => [v.id, iso(v.valid_from), iso(v.valid_to), v.raw_json])).toEqual([
      [
        2n,
        "2025-03-01T10:00:00.000Z",
        "2025-03-02T10:00:00.000Z",
        `{"id":2,"plan_name":"two ' \\" ünïcode"}`,
      ],
      [2n, "2025-03-02T10:00:00.000Z", null, `{"id":2,"plan_name":"two, renamed"}`],
    ]);
  });

  it("writes only the tables asked for", async () => {
    const out = join(dir, "some");
    const results = await exportStore({
      store,
      relations: exportRelations(["plans", "plan_versions"]),
      format: "parquet",
      out,
    });
    expect(readdirSync(out).sort()).toEqual(["plan_versions.parquet", "plans.parquet"]);
    expect(results.map((r) => [r.name, r.rows])).toEqual([
      ["plans", 3],
      ["plan_versions", 4],
    ]);
  });

  it("leaves no file behind when stopped", async () => {
    const out = join(dir, "stopped");
    const stop = new AbortController();
    stop.abort();
    await expect(
      exportStore({ store, relations, format: "parquet", out, signal: stop.signal }),
    ).rejects.toThrow();
    expect(readdirSync(out)).toEqual([]);
    await expect(
      exportStore({
        store,
        relations,
        format: "duckdb",
        out: join(dir, "stopped.duckdb"),
        signal: stop.signal,
      }),
    ).rejects.toThrow();
    expect(readdirSync(dir).filter((f) => f.startsWith("stopped.duckdb"))).toEqual([]);
  });
});

describe("export of a value that is not of its column's type (SQLite keeps any text)", () => {
  const [kind] = storeKinds();
  const dir = mkdtempSync(join(tmpdir(), "tas-export-"));
  afterAll(async () => {
    await kind?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes it as NULL and counts it", async () => {
    if (!kind) throw new Error("no store kind");
    const store = await kind.open(await kind.fresh());
    try {
      await applyOps(store, "2025-03-01T10:00:00.000Z", () => [insert(1, "one"), insert(2, "two")]);
      await kind.rows(store, "UPDATE plans SET period_start_at = 'soon' WHERE id = 2 RETURNING id");
      const [result] = await exportStore({
        store,
        relations: exportRelations(["plans"]),
        format: "parquet",
        out: dir,
      });
      expect(result?.unreadable).toEqual({ period_start_at: 1 });
      const rows = await duck(
        `SELECT id, period_start_at FROM read_parquet('${join(dir, "plans.parquet")}') ORDER BY id`,
      );
      expect(rows.map((r) => [r.id, iso(r.period_start_at)])).toEqual([
        [1n, "2025-01-01T08:30:00.250Z"],
        [2n, null],
      ]);
    } finally {
      await store.close();
    }
  });
});
