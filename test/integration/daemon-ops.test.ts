/**
 * The daemon as an operator runs it (the built CLI in child processes, the simulator over HTTP,
 * the shared Redis under a fresh prefix, a real store: SQLite and PostgreSQL): schedules of
 * seconds, companies synced side by side, /healthz /readyz /metrics, freshness alerts to a
 * webhook, SIGTERM.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import type { Store } from "../../src/store/port.js";
import { ensureBuilt } from "../support/built-cli.js";
import { type RunningDaemon, startDaemon, until } from "../support/daemon.js";
import { testPrefix } from "../support/owner.js";
import { type StoreKind, storeKinds } from "../support/stores.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

let sim: RunningSimulator;
let dir: string;
const prefixes: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, companies: 3, plans: 20, reports: 1 });
  dir = mkdtempSync(join(tmpdir(), "tas-daemon-ops-"));
}, 180_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  config: string;
  database: string;
  prefix: string;
  /** The config's database, opened (closed after the test). */
  store(): Promise<Store>;
}

/** A config file on a fresh database of `kind` (the daemon migrates it). */
async function setup(kind: StoreKind, over: Record<string, unknown> = {}): Promise<Setup> {
  const prefix = testPrefix();
  prefixes.push(prefix);
  const database = await kind.fresh();
  const config = join(dir, `${randomUUID()}.json`);
  const raw = {
    baseUrl: sim.baseUrl,
    database,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logLevel: "info",
    server: { port: 0 },
    http: { timeoutMs: 5000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      auth: { token: c.staticToken },
    })),
    ...over,
  };
  writeFileSync(config, JSON.stringify(raw));
  return {
    config,
    database,
    prefix,
    async store() {
      const s = await kind.open(database);
      cleanups.push(() => s.close());
      return s;
    },
  };
}

function daemon(s: Setup, args: string[] = []): RunningDaemon {
  const d = startDaemon(["--config", s.config, ...args], { TAS_LOG_FORMAT: "json" });
  cleanups.push(async () => {
    d.kill("SIGKILL");
    await d.exited;
  });
  return d;
}

interface RunRow {
  id: number;
  company_id: number;
  status: string;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

describe.each(storeKinds())("the daemon on $name", (kind) => {
  afterAll(() => kind.cleanup());
  const runs = (store: Store) =>
    kind.rows<RunRow>(
      store,
      "SELECT id, company_id, status, started_at, finished_at, error FROM sync_runs ORDER BY id",
    );

  describe("tas-sync daemon in operation", () => {
    it("syncs on a 2 s schedule, companies side by side, and serves health, readiness and metrics", async () => {
      await fetch(`${sim.baseUrl}/__admin/faults`, {
        method: "PUT",
        body: JSON.stringify({ planListDelayMs: 700 }),
      });
      cleanups.push(async () => {
        await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
      });
      const s = await setup(kind, { sync: { every: "2s", concurrency: 3 } });
      const d = daemon(s);
      const url = await d.url();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const store = await s.store();
      const ids = sim.companies.map((c) => c.id);
      // Every company synced at least twice: the 2 s schedule repeats.
      const done = await until(
        "two syncs of every company",
        async () => {
          const ok = (await runs(store)).filter((r) => r.status === "succeeded");
          return ids.every((id) => ok.filter((r) => r.company_id === id).length >= 2) ? ok : undefined;
        },
        60_000,
      );
      // Side by side: some run of one company started before a run of another one finished.
      const overlaps = done.some((a) =>
        done.some(
          (b) =>
            a.company_id !== b.company_id &&
            a.started_at < (b.finished_at ?? "") &&
            b.started_at < (a.finished_at ?? ""),
        ),
      );
      expect(overlaps).toBe(true);

      const ready = await fetch(`${url}/readyz`);
      const body = (await ready.json()) as {
        ok: boolean;
        checks: Record<string, { ok: boolean }>;
        companies: unknown[];
      };
      expect(ready.status).toBe(200);
      expect(body.checks).toMatchObject({
        redis: { ok: true },
        database: { ok: true },
        sync_worker: { ok: true },
        push_worker: { ok: true },
      });
      expect(body.companies).toHaveLength(3);

      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`tas_sync_sync_runs_total\\{company="${ids[0]}",outcome="succeeded"\\} [1-9]`),
      );
      expect(metrics).toMatch(
        new RegExp(`tas_sync_last_success_timestamp_seconds\\{company="${ids[0]}"\\} \\d`),
      );
      expect(metrics).toMatch(new RegExp(`tas_sync_company_stale\\{company="${ids[0]}"\\} 0`));
      expect(metrics).toMatch(/tas_sync_http_requests_total\{operation="listPlans",status="200"\} [1-9]/);
      expect(metrics).toMatch(/tas_sync_records_total\{company="\d+",outcome="inserted"\} 2\d/);
      expect(metrics).toMatch(/tas_sync_queue_jobs\{queue="sync",state="delayed"\} \d/);
      expect(metrics).toContain("process_cpu_user_seconds_total");

      d.kill("SIGTERM");
      const exit = await d.exited;
      expect(exit.code).toBe(0);
      expect(d.logs().map((l) => l.msg)).toEqual(
        expect.arrayContaining(["daemon started", "daemon stopped"]),
      );
      const started = d.logs().find((l) => l.msg === "daemon started");
      expect(started).toMatchObject({
        queuePrefix: s.prefix,
        roles: ["sync", "push", "server"],
        database: s.database,
      });
    }, 90_000);

    it("lets a running sync finish within the grace period, then exits 0", async () => {
      await fetch(`${sim.baseUrl}/__admin/faults`, {
        method: "PUT",
        body: JSON.stringify({ planListDelayMs: 1500 }),
      });
      cleanups.push(async () => {
        await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
      });
      const first = sim.companies[0];
      const s = await setup(kind, {
        sync: { every: "1h" },
        shutdownGraceMs: 30_000,
        companies: [{ id: first?.id, auth: { token: first?.staticToken }, every: "45m" }],
      });
      const d = daemon(s, ["--no-push", "--no-server"]);
      await d.waitFor((l) => l.msg === "sync started", "the first sync");
      // The start log gives the company's own schedule, not sync.every.
      expect(d.logs().find((l) => l.msg === "daemon started")).toMatchObject({
        companies: [{ id: first?.id, every: "45m", staleAfter: "2h15m" }],
      });
      d.kill("SIGTERM");
      expect((await d.exited).code).toBe(0);
      expect(await runs(await s.store())).toEqual([expect.objectContaining({ status: "succeeded" })]);
    }, 60_000);

    it("abandons a sync still running when the grace period is over: it writes nothing, and the daemon exits 0", async () => {
      await fetch(`${sim.baseUrl}/__admin/faults`, {
        method: "PUT",
        body: JSON.stringify({ planListDelayMs: 20_000 }),
      });
      cleanups.push(async () => {
        await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
      });
      const s = await setup(kind, {
        sync: { every: "1h" },
        shutdownGraceMs: 1000,
        companies: [{ id: sim.companies[0]?.id, auth: { token: sim.companies[0]?.staticToken } }],
      });
      const d = daemon(s, ["--no-push", "--no-server"]);
      await d.waitFor((l) => l.msg === "sync started", "the first sync");
      d.kill("SIGTERM");
      const exit = await d.exited;
      expect(exit.code).toBe(0);
      expect(d.logs().map((l) => l.msg)).toEqual(
        expect.arrayContaining([
          "stopping: taking no new jobs; waiting for running ones to finish",
          "grace period over: abandoning running jobs (a sync in progress writes nothing)",
        ]),
      );
      const store = await s.store();
      const [run] = await runs(store);
      expect(run).toMatchObject({ status: "cancelled" });
      expect(run?.error).toContain("nothing was written");
      expect(await kind.rows(store, "SELECT count(*) AS n FROM plans")).toEqual([{ n: 0 }]);
    }, 60_000);
  });

  describe("freshness alerts", () => {
    let hook: Server;
    let hookUrl: string;
    const received: Record<string, unknown>[] = [];
    beforeAll(async () => {
      hook = createServer((req, res) => {
        let body = "";
        req.on("data", (d) => {
          body += d;
        });
        req.on("end", () => {
          received.push(JSON.parse(body) as Record<string, unknown>);
          res.end("ok");
        });
      });
      await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
      const address = hook.address();
      if (!address || typeof address === "string") throw new Error("no port");
      hookUrl = `http://127.0.0.1:${address.port}/hook/secret-path-token`;
    });
    afterAll(async () => {
      await new Promise<void>((r) => hook.close(() => r()));
    });

    it("posts sync_failed and company_stale once each, not per failed run, and company_recovered when fixed", async () => {
      const company = sim.companies[0];
      if (!company) throw new Error("no company");
      const WRONG = "wrong-token-Zq81";
      const over = (token: string) => ({
        sync: { every: "1s", staleAfter: "3s" },
        alerts: { webhookUrl: hookUrl },
        companies: [{ id: company.id, auth: { token } }],
      });
      const s = await setup(kind, over(WRONG));
      const bad = daemon(s, ["--no-push", "--no-server"]);
      const store = await s.store();
      await until("two alerts", () => (received.length >= 2 ? true : undefined), 30_000);
      // Several more failed runs: still only those two alerts.
      await until("five failed runs", async () =>
        (await runs(store)).filter((r) => r.status === "failed").length >= 5 ? true : undefined,
      );
      expect(received.map((r) => r.event)).toEqual(["sync_failed", "company_stale"]);
      expect(received[0]).toMatchObject({ company_id: company.id, failing: true, service: "tas-sync" });
      bad.kill("SIGTERM");
      expect((await bad.exited).code).toBe(0);

      // The same database, the right token: a new daemon sees the recovery and says so once.
      writeFileSync(
        s.config,
        JSON.stringify({ ...JSON.parse(readFileSync(s.config, "utf8")), ...over(company.staticToken) }),
      );
      const good = daemon(s, ["--no-push", "--no-server"]);
      await until("the recovery alert", () => (received.length >= 3 ? true : undefined), 30_000);
      expect(received.map((r) => r.event)).toEqual(["sync_failed", "company_stale", "company_recovered"]);
      good.kill("SIGTERM");
      await good.exited;
      const all =
        JSON.stringify(received) +
        bad
          .logs()
          .map((l) => JSON.stringify(l))
          .join("");
      expect(all).not.toContain(WRONG);
      expect(all).not.toContain("secret-path-token");
    }, 90_000);
  });
});
