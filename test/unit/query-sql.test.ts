/** Which statements `query` refuses, and how it names them. */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstKeyword, readOnlyRefusal } from "../../src/store/read-only.js";

// An in-memory database compiles the statements; nothing is run.
let db: Database.Database;
beforeAll(() => {
  db = new Database(":memory:");
  db.exec("CREATE TABLE t (a INTEGER, b TEXT)");
});
afterAll(() => db.close());

const refusal = (sql: string) => readOnlyRefusal(sql, db.prepare(sql));

describe("firstKeyword", () => {
  it.each([
    ["select 1", "SELECT"],
    ["  -- a comment\n  /* another */ delete from t", "DELETE"],
    ["/* unclosed", ""],
    ["(SELECT 1)", ""],
  ])("reads %j as %j", (sql, keyword) => {
    expect(firstKeyword(sql)).toBe(keyword);
  });
});

describe("readOnlyRefusal", () => {
  it.each([
    "SELECT * FROM t",
    "WITH x AS (SELECT 1) SELECT * FROM x",
    "PRAGMA table_info(t)",
    "VALUES (1, 2)",
    "EXPLAIN QUERY PLAN SELECT * FROM t",
    "EXPLAIN INSERT INTO t VALUES (1, 'x')",
  ])("lets %j run", (sql) => {
    expect(refusal(sql)).toBeNull();
  });

  it.each([
    ["INSERT INTO t VALUES (1, 'x')", "INSERT"],
    ["insert into t values (1, 'x') returning a", "INSERT"],
    ["UPDATE t SET a = 2", "UPDATE"],
    ["DELETE FROM t", "DELETE"],
    ["CREATE TABLE u (x)", "CREATE"],
    ["DROP TABLE t", "DROP"],
    ["WITH x AS (SELECT 1) INSERT INTO t SELECT 1, 'y' FROM x", "INSERT"],
    ["BEGIN", "BEGIN"],
  ])("refuses %j naming %s", (sql, keyword) => {
    expect(refusal(sql)).toBe(
      `query is read-only: ${keyword} statements are not allowed (use SELECT, WITH or PRAGMA)`,
    );
  });

  it("says that a PRAGMA setting a value is refused, not every PRAGMA", () => {
    expect(refusal("PRAGMA user_version = 3")).toMatch(/^query is read-only: a PRAGMA that sets a value/);
  });
});
