/**
 * Secrets out of sight, through the built CLI: `--db env:NAME` reads the database from the
 * environment (a PostgreSQL password never in the process list), and a config file that others
 * may read and that spells out a secret draws one warning line.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, ROOT } from "../support/built-cli.js";
import { TestDatabases } from "../support/postgres.js";

const dbs = new TestDatabases();
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-secrets-cli-"));
}, 120_000);
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await dbs.dropAll();
});

/**
 * stderr without JSON log lines: a writing command's housekeeping (spool files other runs' dead
 * processes left in the shared temporary folder) may log one; what is asserted are plain lines.
 */
const plain = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => !l.startsWith('{"level"'))
    .join("\n");

describe("--db env:NAME", () => {
  it("opens the SQLite file the variable names, not a file called env:NAME", async () => {
    const path = join(dir, "from-env.db");
    const run = await cli(["migrate", "--db", "env:TAS_E2E_DB"], { TAS_E2E_DB: path });
    expect(plain(run.stderr)).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`database ${path} is up to date`);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(join(ROOT, "env:TAS_E2E_DB"))).toBe(false);
  });

  it("connects to PostgreSQL with the password only in the environment, and shows it masked", async () => {
    const url = new URL(await dbs.create());
    url.password = "never-in-argv"; // trust auth on the test server: any password is accepted
    const env = { TAS_E2E_PG: url.toString() };
    const migrated = await cli(["migrate", "--db", "env:TAS_E2E_PG"], env);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain("postgres://postgres:***@");
    const query = await cli(["query", "--db", "env:TAS_E2E_PG", "--format", "csv", "SELECT 1 AS one"], env);
    expect(query.stdout).toBe("one\r\n1\r\n");
    expect(`${migrated.stdout}${migrated.stderr}${query.stdout}${query.stderr}`).not.toContain(
      "never-in-argv",
    );
  });

  it("refuses an unset variable in one line, exit 2", async () => {
    const run = await cli(["query", "--db", "env:TAS_E2E_UNSET", "SELECT 1"], { TAS_E2E_UNSET: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "tas-sync query: --db env:TAS_E2E_UNSET: environment variable TAS_E2E_UNSET is not set\n",
    );
  });
});

describe("a config file with literal secrets that others may read", () => {
  const write = (name: string, mode: number) => {
    // mkdtemp's directory is the owner's alone (0700), which hides any file in it: use one others may enter.
    const shared = join(dir, "shared");
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o755);
    const path = join(shared, name);
    writeFileSync(
      path,
      JSON.stringify({
        baseUrl: "http://127.0.0.1:9/R",
        auth: { token: "literal-token-SECRET" },
        companies: [{ id: 1 }],
        database: join(dir, "warn.db"),
        server: { username: "ops", password: "literal-server-SECRET" },
      }),
    );
    chmodSync(path, mode);
    return path;
  };

  it.skipIf(process.platform === "win32")(
    "warns once on stderr (0644), naming the file and the keys",
    async () => {
      const config = write("open.json", 0o644);
      const run = await cli(["migrate", "--config", config]);
      expect(run.code).toBe(0);
      expect(plain(run.stderr)).toBe(
        `tas-sync migrate: warning: config ${config} is readable by everyone (mode 0644) and holds literal secrets in auth.token, server.password: run chmod 600 ${config}, or write them as "env:NAME"\n`,
      );
    },
  );

  it.skipIf(process.platform === "win32")("says nothing for 0600", async () => {
    const config = write("closed.json", 0o600);
    const run = await cli(["migrate", "--config", config]);
    expect(run.code).toBe(0);
    // Log lines (JSON, not a terminal) may come from the store's housekeeping of other runs'
    // leftovers; the warning is a plain line, and there is none.
    expect(plain(run.stderr)).toBe("");
  });
});
