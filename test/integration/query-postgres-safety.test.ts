/**
 * `query` on PostgreSQL with a superuser URL (the dev default): nothing runs before it is
 * checked. A COPY to a program or a file leaves no file (while the same statement sent straight
 * to the server does write one: the test can fail), the query runs in a READ ONLY transaction
 * with its timeout, a stop cancels it on the server, and the superuser role draws a warning.
 */
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runQuery } from "../../src/commands/query-run.js";
import { databaseTarget } from "../../src/config/index.js";
import { openStore } from "../../src/store/open.js";
import { QueryReadOnlyError, QueryTimeoutError } from "../../src/store/port.js";
import { TestDatabases } from "../support/postgres.js";

const databases = new TestDatabases();
let url: string;
let dir: string;

beforeAll(async () => {
  url = await databases.create();
  await (await openStore(databaseTarget(url))).close(); // migrated: the mirror's tables exist
  // The server runs as another user: it may write here, as a COPY ... TO would.
  dir = mkdtempSync(join(tmpdir(), "tas-copy-"));
  chmodSync(dir, 0o777);
});
afterAll(async () => {
  await databases.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

class Collect extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function query(
  sql: string,
  extra: { timeoutMs?: number; signal?: AbortSignal; maxRows?: number } = {},
) {
  const output = new Collect();
  const warnings: string[] = [];
  const result = await runQuery({
    sql,
    database: databaseTarget(url),
    format: "csv",
    output,
    warn: (l) => warnings.push(l),
    ...extra,
  }).then(
    (code) => ({ code, error: null as Error | null }),
    (error: Error) => ({ code: null, error }),
  );
  return { ...result, text: output.text, warnings };
}

describe("query on PostgreSQL as a superuser", () => {
  // The program reads what COPY writes: one that exits first (touch) makes the control fail now
  // and then with "could not close pipe to external command: Broken pipe".
  it.each([
    ["COPY (SELECT 1) TO PROGRAM 'cat > %FILE%'", "program"],
    ["COPY (SELECT 1) TO '%FILE%'", "file"],
    ["copy (select 1) to program 'cat > %FILE%' -- trailing comment", "program-comment"],
  ])("refuses %s unexecuted: no file appears", async (template, name) => {
    const file = join(dir, `${name}-refused`);
    const r = await query(template.replace("%FILE%", file));
    expect(r.error).toBeInstanceOf(QueryReadOnlyError);
    expect(r.error?.message).toMatch(/^query is read-only: COPY is not allowed/);
    expect(existsSync(file)).toBe(false);

    // The control: the same statement sent straight to the server writes the file.
    const control = join(dir, `${name}-control`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(template.replace("%FILE%", control));
    } finally {
      await client.end();
    }
    expect(existsSync(control)).toBe(true);
  });

  it("refuses a second statement hidden after a dollar quote, and runs neither", async () => {
    const file = join(dir, "hidden");
    const r = await query(`SELECT $$;$$; COPY (SELECT 1) TO PROGRAM 'touch ${file}'`);
    expect(r.error?.message).toBe(
      "query failed: the SQL text holds more than one statement (run one at a time)",
    );
    expect(existsSync(file)).toBe(false);
  });

  it("refuses pg_read_file and pg_terminate_backend before the server sees them", async () => {
    for (const sql of [
      "SELECT pg_read_file('/etc/hostname')",
      "SELECT pg_terminate_backend(pg_backend_pid())",
    ]) {
      const r = await query(sql);
      expect(r.error).toBeInstanceOf(QueryReadOnlyError);
    }
  });

  it("runs a read, and warns once that the role is a superuser", async () => {
    const r = await query("SELECT count(*) AS plans FROM plans");
    expect(r.code).toBe(0);
    expect(r.text).toBe("plans\r\n0\r\n");
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^warning: role ".+" is a superuser: .*tas-sync grant-reader/);
  });

  it.each([
    ["TABLE sync_runs", "id,"],
    ["VALUES (1, 'a')", "column1,column2\r\n1,a\r\n"],
    ["WITH x AS (SELECT 2 AS n) SELECT n FROM x", "n\r\n2\r\n"],
    ["EXPLAIN SELECT * FROM plans", "QUERY PLAN\r\n"],
    ["EXPLAIN DELETE FROM plans", "QUERY PLAN\r\n"],
    ["SHOW statement_timeout", "statement_timeout\r\n1min\r\n"],
  ])("runs the read %s on the server", async (sql, start) => {
    const r = await query(sql, { timeoutMs: 60_000 });
    expect(r.error).toBeNull();
    expect(r.code).toBe(0);
    expect(r.text.startsWith(start)).toBe(true);
  });

  it("runs the statement in a READ ONLY transaction with the statement timeout set", async () => {
    const r = await query(
      "SELECT current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS st",
      { timeoutMs: 90_000 },
    );
    expect(r.text).toBe("ro,st\r\non,90s\r\n");
  });

  it("stops a statement that runs past its timeout, in one line that names the key and the flag", async () => {
    const r = await query("SELECT pg_sleep(600)", { timeoutMs: 1000 });
    expect(r.error).toBeInstanceOf(QueryTimeoutError);
    expect(r.error?.message).toBe(
      "query stopped: it ran longer than its timeout of 1s (raise query.timeout or --timeout; 0 for none)",
    );
  });

  it("stops at its timeout while a slow reader holds the rows (between two pages)", async () => {
    // The reader takes its first chunk only after the 1s timer has fired (timers fire in order).
    let first = true;
    const output = new Writable({
      highWaterMark: 1024,
      write(_chunk, _enc, done) {
        if (!first) return done();
        first = false;
        setTimeout(done, 1500);
      },
    });
    const err = await runQuery({
      sql: "SELECT n, repeat('x', 100) FROM generate_series(1, 100000) AS n",
      database: databaseTarget(url),
      format: "csv",
      output,
      warn: () => {},
      timeoutMs: 1000,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QueryTimeoutError);
  });

  it("cancels the running statement on the server when stopped", async () => {
    const stop = new AbortController();
    const tag = `stop-${randomUUID()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const running = query(`SELECT pg_sleep(600), '${tag}'`, { signal: stop.signal });
      // Wait for the statement to be running on the server, then stop it.
      for (;;) {
        const { rows } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active'",
          [`%${tag}%`],
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      stop.abort();
      const r = await running;
      expect(r.code).toBe(130);
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()",
        [`%${tag}%`],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
  });
});
