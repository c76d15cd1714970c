/**
 * Conventions people rely on: global options before or after the command; the environment
 * variables the docs name (TAS_CONFIG, TAS_DATABASE, REDIS_URL) override the config file, and a
 * flag overrides them (flag > environment > file).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";

const LIVE_REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const DEAD_REDIS = "redis://127.0.0.1:9";
const prefix = `tas-test-${randomUUID()}`;
let dir: string;
let n = 0;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-conventions-"));
}, 120_000);
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  const redis = new Redis(LIVE_REDIS, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

/** A config whose database is its own file; returns its path and the database's. */
function config(over: Record<string, unknown> = {}) {
  const i = ++n;
  const database = join(dir, `file-${i}.db`);
  const path = join(dir, `c${i}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/Testinium.RestApi",
      auth: { token: "t" },
      companies: [{ id: 5251 }],
      database,
      redisUrl: DEAD_REDIS,
      queuePrefix: prefix,
      ...over,
    }),
  );
  return { path, database };
}

describe.concurrent("global options before the command", () => {
  it.for([
    ["-c PATH", (p: string) => ["-c", p, "migrate"]],
    ["--config PATH", (p: string) => ["--config", p, "migrate"]],
    ["--config=PATH", (p: string) => [`--config=${p}`, "migrate"]],
    ["-v and --log-level with -c", (p: string) => ["-v", "--log-level", "warn", "-c", p, "migrate"]],
    ["-c after the command, as before", (p: string) => ["migrate", "-c", p]],
  ] as const)("reads %s", async ([, args], { expect }) => {
    const c = config();
    const r = await cli(args(c.path));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/migration/);
    expect(existsSync(c.database)).toBe(true);
  });

  it("says which option needs a value, and refuses other options before the command", async ({ expect }) => {
    const missing = await cli(["-c"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("tas-sync: option -c needs a value");
    const none = await cli(["-c", "x.json"]);
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe("tas-sync: expected a command after the options (see tas-sync --help)");
    const other = await cli(["--json", "status"]);
    expect(other.stderr.trim()).toBe(
      'tas-sync: expected a command before the options, got "--json" (see tas-sync --help)',
    );
  });
});

describe.concurrent("environment variables over the config file", () => {
  it("TAS_CONFIG names the config when no -c is given, and -c wins over it", async ({ expect }) => {
    const a = config();
    const b = config();
    expect((await cli(["migrate"], { TAS_CONFIG: a.path })).code).toBe(0);
    expect(existsSync(a.database)).toBe(true);
    expect((await cli(["migrate", "-c", b.path], { TAS_CONFIG: join(dir, "nowhere.json") })).code).toBe(0);
    expect(existsSync(b.database)).toBe(true);
  });

  it("TAS_DATABASE overrides the config's database, and --db overrides TAS_DATABASE", async ({ expect }) => {
    const c = config();
    const fromEnv = join(dir, `env-${randomUUID()}.db`);
    const r = await cli(["migrate", "-c", c.path], { TAS_DATABASE: fromEnv });
    expect(r.code).toBe(0);
    expect(existsSync(fromEnv)).toBe(true);
    expect(existsSync(c.database)).toBe(false);
    const fromFlag = join(dir, `flag-${randomUUID()}.db`);
    expect((await cli(["migrate", "--db", fromFlag, "-c", c.path], { TAS_DATABASE: fromEnv })).code).toBe(0);
    expect(existsSync(fromFlag)).toBe(true);
    const q = await cli(["query", "-c", c.path, "SELECT count(*) AS n FROM plans"], {
      TAS_DATABASE: fromEnv,
    });
    expect(q.code).toBe(0);
    expect(existsSync(c.database)).toBe(false);
  });

  it("REDIS_URL overrides the config's redisUrl (status reads the queues it names)", async ({ expect }) => {
    const c = config();
    expect((await cli(["migrate", "-c", c.path])).code).toBe(0);
    const dead = await cli(["status", "-c", c.path]);
    expect(dead.stdout).toContain("queues: unknown");
    const live = await cli(["status", "-c", c.path], { REDIS_URL: LIVE_REDIS });
    expect(live.stdout).not.toContain("queues: unknown");
    expect(live.stdout).toMatch(/^ {2}sync: /m);
  });

  it("names the variable when its value is not valid", async ({ expect }) => {
    const c = config();
    const r = await cli(["status", "-c", c.path], { REDIS_URL: "http://127.0.0.1:6379" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(with REDIS_URL from the environment): redisUrl:`);
  });
});
