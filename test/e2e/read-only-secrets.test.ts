/**
 * The read-only commands (query, status, push-failures, schema) run from a shell that has none of the
 * service's secrets: the config names them with "env:" and the variables are unset. A command
 * that talks to the service (sync) still refuses that config at load, naming the variables.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;
let config: string;
const UNSET = [
  "RO_TEST_CLIENT_ID",
  "RO_TEST_CLIENT_SECRET",
  "RO_TEST_PASSWORD",
  "RO_TEST_TOKEN",
  "RO_TEST_HOOK",
];

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-readonly-"));
  const database = join(dir, "tas.db");
  config = join(dir, "tas-sync.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/Testinium.RestApi",
      auth: {
        tokenUrl: "http://127.0.0.1:9/Testinium.RestApi/oauth/token",
        clientId: "env:RO_TEST_CLIENT_ID",
        clientSecret: "env:RO_TEST_CLIENT_SECRET",
        username: "analyst",
        password: "env:RO_TEST_PASSWORD",
      },
      companies: [{ id: 5251 }, { id: 5252, auth: { token: "env:RO_TEST_TOKEN" } }],
      database,
      // Nothing listens there: status says the queues are unknown.
      redisUrl: "redis://127.0.0.1:9",
      alerts: { webhookUrl: "env:RO_TEST_HOOK" },
    }),
  );
  const migrated = await cli(["migrate", "--db", database]);
  if (migrated.code !== 0) throw new Error(`migrate exited ${migrated.code}: ${migrated.stderr}`);
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The CLI with every secret variable of the config removed from its environment. */
async function withoutSecrets(args: string[]) {
  const env = Object.fromEntries(UNSET.map((name) => [name, undefined]));
  return cli([...args, "--config", config], env);
}

describe("read-only commands with the service's env: secrets unset", () => {
  it("query answers", async () => {
    const run = await withoutSecrets(["query", "SELECT count(*) AS runs FROM sync_runs", "--format", "csv"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("runs\r\n0\r\n");
  });

  it("status reports (never synced: exit 3), with the queues unknown", async () => {
    const run = await withoutSecrets(["status"]);
    expect(run.stderr).not.toMatch(/is not set/);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/5251 .*never synced/);
    expect(run.stdout).toMatch(/queues: unknown/);
  });

  it("push-failures lists (none)", async () => {
    const run = await withoutSecrets(["push-failures", "--json"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
  });

  it("schema answers (nothing observed yet) and acknowledges (none open)", async () => {
    const observed = await withoutSecrets(["schema", "--json"]);
    expect(observed.stderr).toBe("");
    expect(observed.code).toBe(0);
    expect(JSON.parse(observed.stdout)).toEqual([]);
    const ack = await withoutSecrets(["schema", "--ack", "all"]);
    expect(ack.stderr).toBe("");
    expect(ack.stdout).toBe("acknowledged 0 open change(s)\n");
  });

  it("sync, which talks to the service, refuses the config and names every unset variable", async () => {
    const run = await withoutSecrets(["sync"]);
    expect(run.code).toBe(2);
    for (const name of UNSET) expect(run.stderr).toContain(`environment variable ${name} is not set`);
  });
});
