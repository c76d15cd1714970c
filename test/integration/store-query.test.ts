/** Read-only SQL for people through the store port (`sql.query`), on every store kind. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryError, QueryReadOnlyError, type Store } from "../../src/store/port.js";
import { readOnlyMessage } from "../../src/store/read-only.js";
import { applyOps, insert } from "../support/snapshots.js";
import { storeKinds } from "../support/stores.js";

const MILLION = 1_000_000;

async function all(store: Store, sql: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const cursor = await store.sql.query(sql);
  const rows: unknown[][] = [];
  for await (const row of cursor.rows) rows.push(row);
  return { columns: cursor.columns, rows };
}

describe.each(storeKinds())("query on $name", (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open(await kind.fresh());
    await applyOps(store, "2025-03-01T10:00:00.000Z", () => [insert(1, "one"), insert(2, "two")]);
  });
  afterAll(async () => {
    await store.close();
    await kind.cleanup();
  });

  it("streams a million-row result, row by row, in order", async () => {
    const cursor = await store.sql.query(
      `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${MILLION}) SELECT n, 'x' AS t FROM s`,
    );
    expect(cursor.columns).toEqual(["n", "t"]);
    let count = 0;
    let inOrder = true;
    for await (const [n] of cursor.rows) {
      count++;
      if (Number(n) !== count) inOrder = false;
    }
    expect(count).toBe(MILLION);
    expect(inOrder).toBe(true);
  });

  it("gives the result's columns, duplicates kept, and the stored values", async () => {
    const { columns, rows } = await all(
      store,
      "SELECT id AS a, plan_name AS a, first_seen_at, project_id FROM plans ORDER BY id",
    );
    expect(columns).toEqual(["a", "a", "first_seen_at", "project_id"]);
    // 64-bit integers come back exact, as bigints, from either store.
    expect(rows).toEqual([
      [1n, "one", "2025-03-01T10:00:00.000Z", 3_000_000_001n],
      [2n, "two", "2025-03-01T10:00:00.000Z", 3_000_000_002n],
    ]);
  });

  it.each([
    "DELETE FROM plans",
    "INSERT INTO plans (id) VALUES (3)",
    "UPDATE plans SET plan_name = 'x'",
    "WITH old AS (SELECT 1) DELETE FROM plans WHERE id IN (SELECT 1 FROM old)",
    "CREATE TABLE mine (a integer)",
    "DROP TABLE plans",
  ])("refuses %s in plain words, and nothing changes", async (sql) => {
    const err = await store.sql.query(sql).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QueryReadOnlyError);
    expect((err as Error).message).toBe(
      readOnlyMessage(sql, kind.name === "postgres" ? "postgres" : "sqlite"),
    );
    expect(await kind.rows(store, "SELECT count(*) AS n FROM plans")).toEqual([{ n: 2 }]);
  });

  it("refuses a statement that sets something and returns no rows", async () => {
    const sql = kind.name === "sqlite" ? "PRAGMA user_version = 5" : "SET work_mem = '64MB'";
    await expect(store.sql.query(sql)).rejects.toThrow(QueryReadOnlyError);
  });

  it.each([
    ["SELECT * FROM no_such_table", /^query failed: .*no_such_table/],
    ["SELEC 1", /^query failed: .*syntax error/],
    [
      "SELECT 1; SELECT 2",
      /^query failed: the SQL text holds more than one statement \(run one at a time\)$/,
    ],
    ["  -- nothing\n", /^query failed: the SQL text holds no statement$/],
  ])("says why %j cannot run, in one line", async (sql, message) => {
    const err = await store.sql.query(sql).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QueryError);
    expect(err).not.toBeInstanceOf(QueryReadOnlyError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain("\n");
  });
});
