/** Which statements `query` sends to PostgreSQL, decided on PostgreSQL's own parse tree (nothing runs here). */
import { describe, expect, it } from "vitest";
import { statementRefusal } from "../../src/store/postgres/statement-check.js";

describe("statementRefusal on PostgreSQL", () => {
  it.each([
    "SELECT * FROM plans",
    "select 1;",
    "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
    "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 5) SELECT n FROM s",
    "VALUES (1, 'a'), (2, 'b')",
    "TABLE plans",
    "EXPLAIN SELECT * FROM plans",
    "EXPLAIN (COSTS false) SELECT 1",
    "EXPLAIN (ANALYZE false) SELECT 1",
    "EXPLAIN DELETE FROM plans",
    "SHOW work_mem",
    "SHOW ALL",
    "SELECT 'a; DROP TABLE plans' AS s",
    "SELECT $$; COPY (SELECT 1) TO PROGRAM 'id'$$",
    "SELECT $tag$ ; DELETE FROM plans; $tag$",
    "SELECT 1 -- ; DROP TABLE plans",
    "SELECT /* ; DELETE FROM plans; */ 1",
    "SELECT E'\\'; DROP TABLE plans; --'",
    "/* lead */ SELECT count(*) FROM plans",
    "(SELECT 1) UNION (SELECT 2)",
  ])("lets %j run", async (sql) => {
    expect(await statementRefusal(sql)).toBeNull();
  });

  it.each([
    [
      "COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'",
      /^query is read-only: COPY is not allowed: it reads and writes files/,
    ],
    ["COPY plans TO '/tmp/plans.csv'", /^query is read-only: COPY is not allowed/],
    ["copy plans from stdin", /^query is read-only: COPY is not allowed/],
    [
      "DO $$ BEGIN PERFORM 1; END $$",
      /^query is read-only: DO is not allowed: it runs code on the database server/,
    ],
    ["CALL some_procedure()", /^query is read-only: CALL is not allowed/],
    ["SELECT * INTO copy_of_plans FROM plans", /^query is read-only: SELECT \.\.\. INTO creates a table/],
    ["SELECT * FROM plans FOR UPDATE", /^query is read-only: FOR UPDATE\/SHARE locks rows/],
    ["SELECT * FROM (SELECT * FROM plans FOR SHARE) s", /FOR UPDATE\/SHARE/],
    ["SELECT * FROM plans FOR NO KEY UPDATE SKIP LOCKED", /FOR UPDATE\/SHARE/],
    [
      "WITH d AS (DELETE FROM plans RETURNING *) SELECT * FROM d",
      /^query is read-only: a data-modifying WITH \(DELETE\)/,
    ],
    [
      "WITH a AS (SELECT 1), b AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT 1",
      /data-modifying WITH \(INSERT\)/,
    ],
    ["WITH u AS (UPDATE plans SET plan_name = 'x' RETURNING 1) SELECT * FROM u", /\(UPDATE\)/],
    ["EXPLAIN ANALYZE DELETE FROM plans", /^query is read-only: EXPLAIN ANALYZE runs the statement/],
    ["EXPLAIN (ANALYZE) SELECT 1", /EXPLAIN ANALYZE runs the statement/],
    ["EXPLAIN (ANALYZE true, BUFFERS) SELECT 1", /EXPLAIN ANALYZE/],
    ["EXPLAIN SELECT * INTO t FROM plans", /SELECT \.\.\. INTO/],
    ["EXPLAIN CREATE TABLE t AS SELECT 1", /^query is read-only: this statement writes to the database/],
    [
      "DELETE FROM plans",
      /^query is read-only: DELETE statements are not allowed \(use SELECT, WITH, VALUES/,
    ],
    ["INSERT INTO plans (id) VALUES (1)", /INSERT statements are not allowed/],
    ["MERGE INTO plans USING plans p ON false WHEN NOT MATCHED THEN DO NOTHING", /MERGE statements/],
    ["SET work_mem = '1GB'", /^query is read-only: SET statements are not allowed/],
    ["SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", /SET statements/],
    ["BEGIN", /BEGIN statements/],
    ["COMMIT", /COMMIT statements/],
    ["CREATE TABLE t (a int)", /CREATE statements/],
    ["CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", /CREATE statements/],
    ["DROP TABLE plans", /DROP statements/],
    ["TRUNCATE plans", /TRUNCATE statements/],
    ["GRANT SELECT ON plans TO public", /GRANT statements/],
    ["VACUUM plans", /VACUUM statements/],
    ["LOCK TABLE plans", /LOCK statements/],
    ["PREPARE p AS SELECT 1", /PREPARE statements/],
    ["LISTEN x", /LISTEN statements/],
    ["DECLARE c CURSOR FOR SELECT 1", /DECLARE statements/],
    ["LOAD 'plugin'", /LOAD statements/],
    [
      "SELECT pg_read_file('/etc/hostname')",
      /^query is read-only: pg_read_file\(\) acts on the database server/,
    ],
    ["SELECT pg_catalog.pg_terminate_backend(1)", /pg_terminate_backend\(\)/],
    ["SELECT * FROM plans WHERE id IN (SELECT lo_export(1, '/tmp/x'))", /lo_export\(\)/],
    ["SELECT set_config('default_transaction_read_only', 'off', false)", /set_config\(\)/],
    ["SELECT query_to_xml('COPY (SELECT 1) TO PROGRAM ''id''', true, false, '')", /query_to_xml\(\)/],
    ["SELECT dblink_exec('x', 'DROP TABLE plans')", /dblink_exec\(\)/],
    ["SELECT pg_advisory_lock(1)", /pg_advisory_lock\(\)/],
    ["SELECT * FROM pg_ls_dir('/')", /pg_ls_dir\(\)/],
    ["EXPLAIN DELETE FROM plans WHERE id = pg_terminate_backend(1)", /pg_terminate_backend\(\)/],
  ])("refuses %j, unsent, in one line", async (sql, message) => {
    const refusal = await statementRefusal(sql);
    expect(refusal?.kind).toBe("read-only");
    expect(refusal?.message).toMatch(message);
    expect(refusal?.message).not.toContain("\n");
  });

  it.each([
    ["SELECT 1; COPY (SELECT 1) TO PROGRAM 'id'", "more than one statement"],
    ["SELECT $$;$$; DROP TABLE plans", "more than one statement"],
    ["SELECT 'it''s'; DELETE FROM plans", "more than one statement"],
    ["SELECT 1 /* ; */ ; SELECT 2", "more than one statement"],
    ["", "holds no statement"],
    ["  -- only a comment\n", "holds no statement"],
    ["/* nothing */ ;", "holds no statement"],
    ["SELEC 1", "syntax error at or near"],
    ["SELECT 'unterminated", "unterminated quoted string"],
    ["SELECT $$ never closed", "unterminated dollar-quoted string"],
  ])("says why %j cannot run", async (sql, words) => {
    const refusal = await statementRefusal(sql);
    expect(refusal?.kind).toBe("invalid");
    expect(refusal?.message).toMatch(/^query failed: /);
    expect(refusal?.message).toContain(words);
    expect(refusal?.message).not.toContain("\n");
  });
});
