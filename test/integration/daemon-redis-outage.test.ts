/**
 * Redis stopped for 15 s and started again empty (no persistence) while two daemons run: both
 * stay up, /readyz reports the outage and recovers, the schedulers are recreated, and syncs and
 * pushes resume with no manual action, each row created exactly once by the service's count. A redis-server of the test's
 * own (restarted by it), the built CLI, the simulator, one SQLite file shared by both daemons.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { ensureBuilt } from "../support/built-cli.js";
import { type RunningDaemon, startDaemon, until } from "../support/daemon.js";
import { testPrefix } from "../support/owner.js";
import { OwnRedis } from "../support/redis-server.js";
import { notOnce } from "./push-harness.js";

let sim: RunningSimulator;
let redis: OwnRedis;
let dir: string;
const daemons: RunningDaemon[] = [];

beforeAll(async () => {
  await ensureBuilt();
  // Names not unique: the service's own count, not its name check, shows a scenario made twice.
  sim = await startSimulator({ port: 0, companies: 2, plans: 10, reports: 0, faults: { namesNotUnique: 1 } });
  redis = await OwnRedis.start();
  dir = mkdtempSync(join(tmpdir(), "tas-outage-"));
}, 180_000);
afterAll(async () => {
  for (const d of daemons) {
    d.kill("SIGKILL");
    await d.exited;
  }
  await redis?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function readyz(
  url: string,
): Promise<{ status: number; body: { checks: Record<string, { ok: boolean; detail?: string }> } }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as never };
}

describe("a Redis outage under two daemons", () => {
  it("is reported by /readyz, and syncs and pushes resume after Redis comes back empty", async () => {
    const prefix = testPrefix();
    const database = join(dir, "shared.db");
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: sim.baseUrl,
        database,
        redisUrl: redis.url,
        queuePrefix: prefix,
        logLevel: "info",
        server: { port: 0 },
        sync: { every: "2s" },
        http: { timeoutMs: 5000, maxAttempts: 2, maxRequestsPerSecond: 1000 },
        push: { ratePerSecond: 20, concurrency: 2, maxAttempts: 5, lockDurationMs: 2000, uniqueNames: false },
        companies: sim.companies.map((c) => ({ id: c.id, auth: { token: c.staticToken } })),
      }),
    );
    for (let i = 0; i < 2; i++) daemons.push(startDaemon(["--config", config], { TAS_LOG_FORMAT: "json" }));
    const urls = await Promise.all(daemons.map((d) => d.url()));
    const store = openSqliteStore(database);
    const syncsAfter = (since: string) =>
      store.sqlite
        .prepare("SELECT count(*) FROM sync_runs WHERE status = 'succeeded' AND started_at > ?")
        .pluck()
        .get(since) as number;
    await until("a first round of syncs", () => (syncsAfter("") >= 2 ? true : undefined));

    // A push under way when Redis goes: 60 rows at 20/s.
    const seed = join(dir, "rows.ndjson");
    const company = sim.companies[0];
    if (!company) throw new Error("no company");
    const rows = Array.from({ length: 60 }, (_, i) => ({
      company_id: company.id,
      project_id: company.projectIds[0],
      key: `outage-${i}`,
      scenario_name: `outage-${i}`,
      source_file: `O${i}.java`,
    }));
    writeFileSync(seed, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const { cli } = await import("../support/built-cli.js");
    expect((await cli(["push", seed, "--config", config])).code).toBe(0);
    await until("some creates", async () => (sim.state.scenarios.list().length >= 5 ? true : undefined));

    await redis.stop();
    const down = await until("/readyz to report the outage", async () => {
      const r = await readyz(urls[0] as string);
      return r.status === 503 && r.body.checks.redis?.ok === false ? r : undefined;
    });
    expect(down.body.checks.redis?.detail).toMatch(/unreachable/);
    await new Promise((r) => setTimeout(r, 15_000));
    for (const d of daemons) expect(d.child.exitCode).toBeNull();
    expect((await fetch(`${urls[1]}/healthz`)).status).toBe(200);

    await redis.start();
    const back = new Date().toISOString();
    await until(
      "both daemons ready again",
      async () => ((await Promise.all(urls.map(readyz))).every((r) => r.status === 200) ? true : undefined),
      30_000,
    );
    const queue = new Queue("sync", { connection: { url: redis.url }, prefix });
    const schedulers = await until(
      "the schedulers recreated",
      async () => {
        const s = await queue.getJobSchedulers();
        return s.length === 2 ? s : undefined;
      },
      30_000,
    );
    await queue.close();
    expect(schedulers.map((s) => s.key).sort()).toEqual(
      sim.companies.map((c) => `sync-company-${c.id}`).sort(),
    );
    await until("syncs after Redis came back", () => (syncsAfter(back) >= 2 ? true : undefined), 30_000);
    await until(
      "every row created",
      async () => (sim.state.scenarios.list().length >= 60 ? true : undefined),
      30_000,
    );
    const creates = sim.state.scenarios.createsByName();
    const perKey = Object.fromEntries(
      rows.map((r) => [r.key, creates[`${r.project_id}/${r.scenario_name}`] ?? 0]),
    );
    expect(
      notOnce(
        perKey,
        rows.map((r) => r.key),
      ),
    ).toEqual([]);
    expect(sim.state.scenarios.list()).toHaveLength(60);
    const logs = daemons.flatMap((d) => d.logs().map((l) => l.msg));
    expect(logs.filter((m) => m === "redis connection lost; retrying").length).toBeGreaterThanOrEqual(2);
    expect(logs.some((m) => /^redis reconnected after \d+\.\d s$/.test(m))).toBe(true);
    // No burst of identical lines while Redis was away; jobs lost with its data: one line.
    // Named with their errors, so that a failure says which command failed and why.
    const errors = daemons.flatMap((d) => d.logs().filter((l) => l.msg === "redis error"));
    expect(errors).toEqual([]);
    expect(logs.filter((m) => m.startsWith("redis still unreachable")).length).toBeLessThanOrEqual(2);

    // Stopping with Redis away again does not hang: close() gives up on Redis within the grace.
    await redis.stop();
    for (const d of daemons) d.kill("SIGTERM");
    const exits = await Promise.all(daemons.map((d) => d.exited));
    expect(exits.map((e) => e.code)).toEqual([0, 0]);
    await store.close();
  }, 180_000);
});
