/**
 * The built CLI as a user runs it: `node dist/src/bin.js ...` from the repo root, against a
 * simulator started in this process (the child talks to it over real HTTP).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt, ROOT } from "../support/built-cli.js";

const WRONG_TOKEN = "wrong-token-Zq8vX2";

let sim: RunningSimulator;
let dir: string;
let commandNames: string[];

function writeConfig(name: string, cfg: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(cfg, null, 2));
  return path;
}

function simConfig(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    baseUrl: sim.baseUrl,
    database: join(dir, "tas.db"),
    logLevel: "warn",
    http: { timeoutMs: 2000, maxAttempts: 2, maxRequestsPerSecond: 1000 },
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      auth: { token: c.staticToken },
    })),
    ...over,
  };
}

beforeAll(async () => {
  await ensureBuilt();
  const built = (await import(join(ROOT, "dist/src/commands/index.js"))) as { commands: { name: string }[] };
  commandNames = built.commands.map((c) => c.name);
  sim = await startSimulator({ port: 0, plans: 5, reports: 2 });
  dir = mkdtempSync(join(tmpdir(), "tas-sync-cli-"));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each case is its own process: run them side by side.
describe.concurrent("tas-sync help and usage", () => {
  it("lists every command in --help", async ({ expect }) => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(commandNames).toEqual(expect.arrayContaining(["sync", "migrate", "query", "simulate", "demo"]));
    for (const name of commandNames) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });

  it.for([
    ["sync", ["--company ID", "Exit codes"]],
    ["migrate", ["--db PATH"]],
    ["query", ["--format table|csv|json|ndjson", "--json", "--db PATH", "--max-width N", "Exit codes"]],
  ] as const)("prints the help of %s", async ([name, mentions], { expect }) => {
    const r = await cli([name, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: tas-sync ${name}`);
    for (const m of mentions) expect(r.stdout).toContain(m);
  });

  it.for([
    ["an unknown command", ["frobnicate"], 'unknown command "frobnicate"'],
    ["an unknown flag", ["sync", "--frobnicate"], "frobnicate"],
    ["a stray argument", ["migrate", "extra"], 'unexpected argument "extra"'],
    ["an unknown log level", ["migrate", "--log-level", "loud"], 'unknown log level "loud"'],
  ] as const)("exits 2 on %s", async ([, args, message], { expect }) => {
    const r = await cli([...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it("exits 2 with usage when no command is given", async ({ expect }) => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("Usage: tas-sync <command>");
  });
});

describe.concurrent("tas-sync config errors", () => {
  it("exits 2 with one line naming a missing config file", async ({ expect }) => {
    const path = join(dir, "nope.json");
    const r = await cli(["sync", "--config", path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringContaining(`config file not found: ${path}`)]);
  });

  it.for([
    [
      "a missing env var",
      { auth: { token: "env:TAS_E2E_MISSING" }, companies: [{ id: 1 }] },
      "auth.token",
      "TAS_E2E_MISSING",
    ],
    [
      "plain http to a remote host",
      { baseUrl: "http://tas.example.com/R", auth: { token: "t-Qx9" } },
      "baseUrl",
      "allowInsecureHttp",
    ],
    ["an unknown key", { databse: "x.db", auth: { token: "t-Qx9" } }, "(root)", "databse"],
    ["a wrong type", { http: { maxAttempts: "many" } }, "http.maxAttempts", "expected number"],
  ] as const)("exits 2 on %s, naming the key path", async ([what, over, path, mention], { expect }) => {
    const file = writeConfig(`bad-${what.replace(/\W+/g, "-")}.json`, {
      baseUrl: "https://tas.example.com/R",
      auth: { token: "t-Qx9" },
      companies: [{ id: 1 }],
      ...over,
    });
    const r = await cli(["sync"], { TAS_CONFIG: file });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toContain(path);
    expect(lines[0]).toContain(mention);
    expect(r.stderr).not.toContain("t-Qx9");
  });
});

describe("tas-sync against the simulator", () => {
  it("migrates a new database", async () => {
    const db = join(dir, "migrated.db");
    const r = await cli(["migrate", "--db", db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`database ${db} is up to date \\(\\d+ migrations applied\\)`));
    expect(existsSync(db)).toBe(true);
  });

  it("syncs every company, prints a summary line each, and answers queries", async () => {
    const config = writeConfig("ok.json", simConfig());
    const r = await cli(["sync", "--config", config]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toEqual(
      sim.companies.map((c) =>
        expect.stringMatching(new RegExp(`^company ${c.id}: succeeded .* fetched 7, inserted 7, updated 0`)),
      ),
    );

    const q = await cli([
      "query",
      "-c",
      config,
      "SELECT company_id, count(*) AS plans FROM plans GROUP BY 1 ORDER BY 1",
    ]);
    expect(q.code).toBe(0);
    expect(q.stdout.trim().split("\n")).toEqual([
      "company_id  plans",
      "----------  -----",
      "5251        5",
      "5252        5",
    ]);
    const json = await cli([
      "query",
      "--db",
      join(dir, "tas.db"),
      "--json",
      "SELECT id FROM scheduled_reports ORDER BY id",
    ]);
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ id: 132 }, { id: 133 }, { id: 134 }, { id: 135 }]);
    const bad = await cli(["query", "--db", join(dir, "tas.db"), "SELECT nope FROM nowhere"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("query failed");
  });

  it("exits 3 when a company is only partly synced", async () => {
    const config = writeConfig(
      "partial.json",
      simConfig({
        database: join(dir, "partial.db"),
        companies: [{ id: 5251, reportIds: [132, 134], auth: { token: "sim-token-5251" } }],
      }),
    );
    const r = await cli(["sync", "--config", config]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^company 5251: partial /);
    expect(r.stdout).toContain("  ! report 134: getScheduledReport: HTTP 403 ACCESS_DENIED");
  });

  it("exits 1 on a refused token without printing the token", async () => {
    const config = writeConfig(
      "wrong.json",
      simConfig({
        database: join(dir, "wrong.db"),
        auth: { token: WRONG_TOKEN },
        companies: [{ id: 5251, reportIds: [132] }],
      }),
    );
    const r = await cli(["sync", "--config", config, "--log-level", "debug"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^company 5251: failed /);
    expect(r.stdout).toContain("HTTP 401");
    expect(`${r.stdout}\n${r.stderr}`).not.toContain(WRONG_TOKEN);
    const db = new Database(join(dir, "wrong.db"), { readonly: true });
    try {
      const stored = ["sync_runs", "sync_errors", "rejected_records"].map((t) =>
        db.prepare(`SELECT * FROM ${t}`).all(),
      );
      expect(stored[1]).toMatchObject([{ code: "UNAUTHORIZED", http_status: 401 }]);
      expect(JSON.stringify(stored)).not.toContain(WRONG_TOKEN);
    } finally {
      db.close();
    }
  });
});
