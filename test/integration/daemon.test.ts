/**
 * The daemon side on a real Redis (a fresh BullMQ prefix per test, its keys deleted after),
 * the simulator in this process and a real store (SQLite and PostgreSQL): job schedulers
 * follow the config, the sync worker runs scheduled syncs (and records failed ones), and the
 * built CLI's `daemon` starts, syncs and stops on SIGTERM, or refuses to start without Redis
 * (on SQLite only: it stops before opening the store).
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";
import { SyncQueue } from "../../src/queue/sync.js";
import { createClients } from "../../src/runtime.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/port.js";
import { ensureBuilt, type Run, startCli } from "../support/built-cli.js";
import { testPrefix } from "../support/owner.js";
import { freePort } from "../support/redis-server.js";
import { type StoreKind, storeKind, storeKinds } from "../support/stores.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger({ level: "silent", pretty: false });
const FIRST = 5251;
const SECOND = 5252;

interface SyncRun {
  company_id: number;
  trigger: string;
  status: string;
  inserted: number;
  error: string | null;
}

let sim: RunningSimulator;
let dir: string;
/** The store kind of the describe running (see onKind). */
let kind: StoreKind;
const prefixes: string[] = [];
/** Closed after each test, whatever it asserted. */
const cleanups: (() => Promise<void> | void)[] = [];

function newPrefix(): string {
  const prefix = testPrefix();
  prefixes.push(prefix);
  return prefix;
}

/** The tests of a describe run on `k`: a fresh database each (migrated by whoever opens it first). */
function onKind(k: StoreKind) {
  beforeAll(() => {
    kind = k;
  });
  afterAll(() => k.cleanup());
}

async function rawConfig(over: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return {
    baseUrl: sim.baseUrl,
    database: await kind.fresh(),
    redisUrl: REDIS_URL,
    queuePrefix: newPrefix(),
    logLevel: "warn",
    server: { port: 0 },
    http: { timeoutMs: 2000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      auth: { token: c.staticToken },
    })),
    ...over,
  };
}

const config = async (over: Record<string, unknown> = {}): Promise<Config> =>
  parseConfig(await rawConfig(over), "(test)");

/** A migrated database for the config. */
async function openFor(cfg: Config): Promise<Store> {
  const store = await openStore(cfg.database);
  cleanups.push(() => store.close());
  return store;
}

async function syncQueue(cfg: Config): Promise<SyncQueue> {
  const clients = createClients(cfg, logger);
  const queue = new SyncQueue({ cfg, store: await openFor(cfg), clients, logger });
  cleanups.push(async () => {
    await queue.close();
    await clients.close();
  });
  return queue;
}

const runs = (store: Store): Promise<SyncRun[]> =>
  kind.rows<SyncRun>(store, "SELECT company_id, trigger, status, inserted, error FROM sync_runs ORDER BY id");

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Finished runs once every one of `companies` has one, else undefined. */
async function finishedRuns(store: Store, companies: number[]): Promise<SyncRun[] | undefined> {
  const done = (await runs(store)).filter((r) => r.status !== "running");
  return companies.every((id) => done.some((r) => r.company_id === id)) ? done : undefined;
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** Newest .ts under a folder (recursively), for deciding whether dist/ is stale. */
beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, plans: 5, reports: 2 });
  dir = mkdtempSync(join(tmpdir(), "tas-daemon-test-"));
}, 120_000);

afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

afterAll(async () => {
  await sim?.close();
  for (const prefix of prefixes) await deleteKeys(prefix);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(storeKinds())("SyncQueue on $name", (k) => {
  onKind(k);

  it("keeps one job scheduler per configured company and removes those of companies no longer configured", async () => {
    const both = await config({ sync: { everyMinutes: 7 } });
    const queue = await syncQueue(both);
    await queue.schedule();
    await queue.schedule(); // again: still one per company
    const schedulers = await queue.queue.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual([`sync-company-${FIRST}`, `sync-company-${SECOND}`]);
    expect(schedulers.map((s) => Number(s.every))).toEqual([7 * 60_000, 7 * 60_000]);

    // The same deployment (same prefix), restarted with one company less.
    const onlyFirst = await config({
      queuePrefix: both.queuePrefix,
      companies: [{ id: FIRST, auth: { token: `sim-token-${FIRST}` } }],
    });
    const shrunk = await syncQueue(onlyFirst);
    await shrunk.schedule();
    const left = await shrunk.queue.getJobSchedulers();
    expect(left.map((s) => s.key)).toEqual([`sync-company-${FIRST}`]);
  });

  it("skips the job a removed company's scheduler had already queued", async () => {
    const both = await config({ sync: { everyMinutes: 60 } });
    await (await syncQueue(both)).schedule(); // each scheduler queues its first run at once; no worker yet
    const onlyFirst = await config({
      queuePrefix: both.queuePrefix,
      // The same database (a postgres URL as given, password and all).
      database: both.database.dialect === "sqlite" ? both.database.path : both.database.url.reveal(),
      sync: { everyMinutes: 60 },
      companies: [{ id: FIRST, auth: { token: `sim-token-${FIRST}` } }],
    });
    const store = await openFor(onlyFirst);
    const queue = await syncQueue(onlyFirst);
    await queue.schedule();
    expect(await queue.queue.getWaitingCount()).toBe(2); // the removed company's job is still there
    queue.startWorker();

    const jobs = await until("both jobs completed", async () => {
      const done = await queue.queue.getCompleted();
      return done.length === 2 ? done : undefined;
    });
    const results = jobs
      .map((j) => [j.data.companyId, j.returnvalue?.skipped ?? j.returnvalue?.status])
      .sort();
    expect(results).toEqual([
      [FIRST, "succeeded"],
      [SECOND, "company not in the config"],
    ]);
    expect((await runs(store)).map((r) => r.company_id)).toEqual([FIRST]);
  });

  it("runs each company's first scheduled sync right away and records it with trigger 'schedule'", async () => {
    // everyMinutes 60: a run seen within seconds can only be the scheduler's first, immediate one.
    const cfg = await config({ sync: { everyMinutes: 60 } });
    const store = await openFor(cfg);
    const queue = await syncQueue(cfg);
    await queue.schedule();
    queue.startWorker();

    const done = await until("a finished scheduled run per company", () =>
      finishedRuns(store, [FIRST, SECOND]),
    );
    expect(done.map((r) => [r.company_id, r.trigger, r.status]).sort()).toEqual([
      [FIRST, "schedule", "succeeded"],
      [SECOND, "schedule", "succeeded"],
    ]);
    const plans = await kind.rows(
      store,
      "SELECT company_id, count(*) AS n FROM plans GROUP BY company_id ORDER BY company_id",
    );
    expect(plans).toEqual([
      { company_id: FIRST, n: 5 },
      { company_id: SECOND, n: 5 },
    ]);
    // The job finished as completed (the scheduler's next run stays delayed for an hour).
    await until("both jobs completed", async () =>
      (await queue.queue.getCompletedCount()) === 2 ? true : undefined,
    );
  });

  it("records a sync the service fails as failed in sync_runs, and fails its job", async () => {
    const failing = await startSimulator({ port: 0, plans: 3, reports: 1, faults: { errorRate: 1 } });
    cleanups.push(() => failing.close());
    const company = failing.companies[0];
    if (!company) throw new Error("no company");
    const cfg = await config({
      baseUrl: failing.baseUrl,
      companies: [{ id: company.id, reportIds: company.reportIds, auth: { token: company.staticToken } }],
    });
    const store = await openFor(cfg);
    const queue = await syncQueue(cfg);
    await queue.schedule();
    queue.startWorker();

    const [run] = await until("a finished run", () => finishedRuns(store, [company.id]));
    expect(run).toMatchObject({ company_id: company.id, trigger: "schedule", status: "failed" });
    expect(run?.error).toMatch(/500|server/i);
    const failed = await until("the failed job", async () => {
      const jobs = await queue.queue.getFailed();
      return jobs.length ? jobs : undefined;
    });
    expect(failed[0]?.failedReason).toMatch(new RegExp(`sync of company ${company.id} failed`));
  });
});

function spawnCli(args: string[]): { child: ChildProcess; exited: Promise<Run> } {
  const { child, done } = startCli(args);
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return { child, exited: done };
}

function writeConfig(raw: Record<string, unknown>): string {
  const path = join(dir, `${randomUUID()}.json`);
  writeFileSync(path, JSON.stringify(raw, null, 2));
  return path;
}

/** A TCP port nothing listens on (bound, then released). */
const unusedPort = freePort;

describe.each(storeKinds())("tas-sync daemon (built CLI) on $name", (k) => {
  onKind(k);

  it("starts, runs the scheduled syncs, and exits 0 after a graceful stop at SIGTERM", async () => {
    const raw = await rawConfig({ logLevel: "info" });
    const { child, exited } = spawnCli(["daemon", "--config", writeConfig(raw)]);
    const store = await openFor(parseConfig(raw, "(test)"));
    const done = await until(
      "the daemon's scheduled syncs",
      async () => {
        if (child.exitCode !== null) throw new Error(`daemon exited early: ${(await exited).stderr}`);
        return finishedRuns(store, [FIRST, SECOND]);
      },
      30_000,
    );
    expect(done.map((r) => [r.trigger, r.status])).toEqual([
      ["schedule", "succeeded"],
      ["schedule", "succeeded"],
    ]);

    child.kill("SIGTERM");
    const result = await exited;
    expect(result).toMatchObject({ code: 0, signal: null });
    expect(result.stderr).toContain("daemon started");
    expect(result.stderr).toContain("stopping");
  }, 60_000);
});

describe("tas-sync daemon (built CLI) without Redis", () => {
  onKind(storeKind("sqlite"));

  it("exits non-zero at once, with one line naming the URL, when Redis cannot be reached", async () => {
    const url = `redis://127.0.0.1:${await unusedPort()}`;
    const { exited } = spawnCli(["daemon", "--config", writeConfig(await rawConfig({ redisUrl: url }))]);
    const result = await exited;
    expect(result.code).not.toBe(0);
    const lines = result.stderr.split("\n").filter((l) => l.trim() !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot reach Redis at ${url}`);
    expect(lines[0]).toContain("ECONNREFUSED");
    expect(result.stdout).toBe("");
  });
});
