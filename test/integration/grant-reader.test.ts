/**
 * `tas-sync grant-reader`: the role it makes can read the mirror and nothing else, and the
 * server is what says no. Every attempt below goes straight to PostgreSQL as that role (pg, not
 * `query`), so tas-sync's own checks play no part. The roles made here are dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runQuery } from "../../src/commands/query-run.js";
import { databaseTarget } from "../../src/config/index.js";
import { openStore } from "../../src/store/open.js";
import { scramVerifier } from "../../src/store/postgres/scram.js";
import { PG_URL, TestDatabases } from "../support/postgres.js";
import { runCli } from "./push-harness.js";

const databases = new TestDatabases();
const roles: string[] = [];
let url: string;
let admin: pg.Client;

function newRole(): string {
  const name = `tas_test_reader_${randomBytes(5).toString("hex")}`;
  roles.push(name);
  return name;
}

/** The URL of the test database as `role` (the server trusts local connections here). */
function as(role: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = "";
  return u.toString();
}

async function connectAs(role: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: as(role) });
  c.on("error", () => {});
  await c.connect();
  return c;
}

/** The SQLSTATE the server answers `sql` with, or "ok". */
async function outcome(c: pg.Client, sql: string): Promise<string> {
  try {
    await c.query(sql);
    return "ok";
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

beforeAll(async () => {
  url = await databases.create();
  await (await openStore(databaseTarget(url))).close();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await databases.dropAll();
  const server = new pg.Client({ connectionString: PG_URL });
  await server.connect();
  try {
    for (const role of roles) await server.query(`DROP ROLE IF EXISTS ${role}`);
  } finally {
    await server.end();
  }
});

describe("grant-reader", () => {
  let role: string;
  let reader: pg.Client;
  let output: string[];

  beforeAll(async () => {
    role = newRole();
    process.env.TAS_TEST_READER_PW = "s3cret-Reader-pw";
    const r = await runCli(["grant-reader", role, "--db", url, "--password", "env:TAS_TEST_READER_PW"]);
    delete process.env.TAS_TEST_READER_PW;
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    output = r.out;
    reader = await connectAs(role);
  });
  afterAll(async () => {
    await reader?.end();
  });

  it("says what the role may do, without the password", () => {
    expect(output[0]).toMatch(
      new RegExp(
        `^reader role "${role}" created: may log in and SELECT \\d+ tables and views in schema public of database tas_test_\\w+, nothing else; password set from env:TAS_TEST_READER_PW$`,
      ),
    );
    expect(output.join("\n")).not.toContain("s3cret-Reader-pw");
  });

  it("stores a SCRAM verifier, never the password", async () => {
    const { rows } = await admin.query("SELECT rolpassword FROM pg_authid WHERE rolname = $1", [role]);
    expect(rows[0].rolpassword).toMatch(/^SCRAM-SHA-256\$4096:/);
    expect(rows[0].rolpassword).not.toContain("s3cret");
  });

  it("reads the mirror's tables and views", async () => {
    expect(await outcome(reader, "SELECT count(*) FROM plans")).toBe("ok");
    expect(await outcome(reader, "SELECT * FROM sync_runs")).toBe("ok");
    const { rows } = await admin.query("SELECT viewname FROM pg_views WHERE schemaname = 'public' LIMIT 1");
    expect(rows).toHaveLength(1);
    expect(await outcome(reader, `SELECT * FROM ${rows[0].viewname} LIMIT 1`)).toBe("ok");
  });

  it("is refused the server's files and other sessions' backends by the server", async () => {
    expect(await outcome(reader, "SELECT pg_read_file('/etc/hostname')")).toBe("42501");
    expect(await outcome(reader, "SELECT pg_read_binary_file('/etc/hostname')")).toBe("42501");
    expect(await outcome(reader, "SELECT pg_ls_dir('.')")).toBe("42501");
    const { rows } = await admin.query("SELECT pg_backend_pid() AS pid");
    expect(await outcome(reader, `SELECT pg_terminate_backend(${rows[0].pid})`)).toBe("42501");
    expect(await outcome(reader, `SELECT pg_cancel_backend(${rows[0].pid})`)).toBe("42501");
    expect(await outcome(admin, "SELECT 1")).toBe("ok"); // still alive
    expect(await outcome(reader, "COPY (SELECT 1) TO PROGRAM 'true'")).toBe("42501");
    expect(await outcome(reader, "COPY plans TO '/tmp/tas-reader-copy'")).toBe("42501");
  });

  it("is refused writes and DDL by the server, even with its read-only default turned off", async () => {
    // The role's own default refuses writes first (25006)...
    expect(await outcome(reader, "DELETE FROM plans")).toBe("25006");
    // ...and without it, its privileges do (42501).
    await reader.query("SET default_transaction_read_only = off");
    for (const sql of [
      "INSERT INTO sync_runs (company_id, started_at, status) VALUES (2, '2025-01-01T00:00:00Z', 'ok')",
      "UPDATE plans SET plan_name = 'x'",
      "DELETE FROM plans",
      "TRUNCATE plans",
      "CREATE TABLE public.mine (a int)",
      "CREATE VIEW public.mine AS SELECT 1",
      "ALTER TABLE plans ADD COLUMN x int",
      "DROP TABLE plans",
      "CREATE SCHEMA mine",
    ])
      expect([sql, await outcome(reader, sql)]).toEqual([sql, "42501"]);
    expect(await outcome(reader, "CREATE DATABASE tas_test_reader_db")).toBe("42501");
    expect(await outcome(reader, "CREATE ROLE tas_test_other")).toBe("42501");
  });

  it("reads a table that a later migration adds (default privileges)", async () => {
    await admin.query("CREATE TABLE later_table (a int)");
    await admin.query("INSERT INTO later_table VALUES (1)");
    expect((await reader.query("SELECT a FROM later_table")).rows).toEqual([{ a: 1 }]);
  });

  it("draws no warning from query, which runs as it", async () => {
    const warnings: string[] = [];
    const out = new Writable({ write: (_c, _e, done) => done() });
    const code = await runQuery({
      sql: "SELECT count(*) FROM plans",
      database: databaseTarget(as(role)),
      format: "csv",
      output: out,
      warn: (l) => warnings.push(l),
    });
    expect(code).toBe(0);
    expect(warnings).toEqual([]);
  });
});

describe("grant-reader on a role that had more", () => {
  it("takes away its write privileges and memberships, and keeps its password when none is given", async () => {
    const role = newRole();
    await admin.query(`CREATE ROLE ${role} LOGIN CREATEDB PASSWORD 'before'`);
    await admin.query(`GRANT INSERT, UPDATE, DELETE ON plans TO ${role}`);
    await admin.query(`GRANT CREATE ON SCHEMA public TO ${role}`);
    await admin.query(`GRANT pg_read_server_files, pg_signal_backend TO ${role}`);
    const before = (await admin.query("SELECT rolpassword FROM pg_authid WHERE rolname = $1", [role]))
      .rows[0];

    // query warns about a role that may write.
    const warnings: string[] = [];
    await runQuery({
      sql: "SELECT 1",
      database: databaseTarget(as(role)),
      format: "csv",
      output: new Writable({ write: (_c, _e, done) => done() }),
      warn: (l) => warnings.push(l),
    });
    expect(warnings).toEqual([
      `warning: role "${role}" may write the mirror's tables; connect as a reader role (tas-sync grant-reader ROLE; see docs/security.md)`,
    ]);

    const r = await runCli(["grant-reader", role, "--db", url]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(new RegExp(`^reader role "${role}" updated: .*; password unchanged$`));
    expect(r.out).toContain("memberships revoked: pg_read_server_files, pg_signal_backend");
    const after = (
      await admin.query("SELECT rolpassword, rolcreatedb FROM pg_authid WHERE rolname = $1", [role])
    ).rows[0];
    expect(after.rolpassword).toBe(before.rolpassword);
    expect(after.rolcreatedb).toBe(false);

    const c = await connectAs(role);
    try {
      await c.query("SET default_transaction_read_only = off");
      expect(await outcome(c, "DELETE FROM plans")).toBe("42501");
      expect(await outcome(c, "CREATE TABLE public.mine (a int)")).toBe("42501");
      expect(await outcome(c, "SELECT pg_read_file('/etc/hostname')")).toBe("42501");
      expect(await outcome(c, "SELECT count(*) FROM plans")).toBe("ok");
    } finally {
      await c.end();
    }
  });

  it.each([
    [["grant-reader", "postgres"], /"postgres" is (the role this command connects as|a superuser)/],
    [["grant-reader", "pg_monitor"], /names starting with pg_ are reserved/],
    [["grant-reader", "bad name;"], /is not a plain name/],
    [["grant-reader", "x", "--password", "hunter2"], /^--password takes env:NAME/],
    [["grant-reader", "x", "--password", "env:TAS_TEST_UNSET_VAR"], /TAS_TEST_UNSET_VAR is not set or empty/],
  ])("refuses %j in one line, exit 2", async (args, message) => {
    const r = await runCli([...args, "--db", url]);
    expect(r.code).toBe(2);
    const line = r.stderr.replace(/^tas-sync grant-reader: /, "").trimEnd();
    expect(line).toMatch(message);
    expect(line).not.toContain("\n");
    expect(r.stderr).not.toContain("hunter2");
  });

  it("refuses a SQLite database", async () => {
    const r = await runCli(["grant-reader", "x", "--db", "./nowhere.db"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/grant-reader makes a PostgreSQL role; \.\/nowhere\.db is a SQLite file/);
  });
});

describe("scramVerifier", () => {
  it("computes the verifier the server computes for the same password and salt", async () => {
    const role = newRole();
    await admin.query("SET password_encryption = 'scram-sha-256'");
    await admin.query(`CREATE ROLE ${role} PASSWORD 'pässwörd with spaces'`);
    const { rows } = await admin.query("SELECT rolpassword FROM pg_authid WHERE rolname = $1", [role]);
    const stored = rows[0].rolpassword as string;
    const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored);
    expect(m).not.toBeNull();
    const salt = Buffer.from(m?.[2] as string, "base64");
    expect(scramVerifier("pässwörd with spaces", salt, Number(m?.[1]))).toBe(stored);
    expect(scramVerifier("another", salt, Number(m?.[1]))).not.toBe(stored);
  });
});
