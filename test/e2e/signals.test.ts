/**
 * Ctrl+C and SIGTERM as a user sends them: the built CLI in a child process, a signal sent
 * while it is surely mid-work (the simulator holds its request: a fault delay, and the test
 * waits until the simulator counts the request as held), then what is left behind.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ROUTE } from "../../src/simulator/router.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { ensureBuilt, type Run, startCli } from "../support/built-cli.js";
import { testPrefix } from "../support/owner.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** Far longer than any test: a request held this long is only ever ended by the signal. */
const HOLD_MS = 600_000;

let dir: string;
let redis: Redis;
const prefixes: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-signals-"));
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
}, 120_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  }
  redis?.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function simulator(faults: Record<string, number>, plans = 3): Promise<RunningSimulator> {
  const sim = await startSimulator({ port: 0, plans, reports: 1, faults });
  cleanups.push(() => sim.close());
  return sim;
}

function writeConfig(
  sim: RunningSimulator,
  over: Record<string, unknown> = {},
): { path: string; db: string } {
  const name = randomUUID();
  const db = join(dir, `${name}.db`);
  const prefix = testPrefix();
  prefixes.push(prefix);
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      baseUrl: sim.baseUrl,
      database: db,
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      logLevel: "warn",
      server: { port: 0 },
      http: { timeoutMs: HOLD_MS, maxAttempts: 3, maxRequestsPerSecond: 1000 },
      companies: sim.companies.map((c) => ({
        id: c.id,
        reportIds: c.reportIds,
        auth: { token: c.staticToken },
      })),
      ...over,
    }),
  );
  return { path, db };
}

function spawn(args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const started = startCli(args);
  cleanups.push(() => {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill("SIGKILL");
  });
  return started;
}

/** Polls `ready` until it holds (an event the test waits for, never a duration it asserts). */
async function until(what: string, ready: () => boolean, child: ChildProcess, done: Promise<Run>) {
  const deadline = Date.now() + 30_000;
  while (!ready()) {
    if (child.exitCode !== null) throw new Error(`exited before ${what}: ${(await done).stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function rows<T>(db: string, sql: string): T[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare(sql).all() as T[];
  } finally {
    conn.close();
  }
}

const spoolDirsOf = (pid: number | undefined) =>
  readdirSync(tmpdir()).filter((n) => n.startsWith(`tas-spool-${pid}-`));

describe("a signal during a one-shot sync", () => {
  it.for([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s while the plan lists download: says so, ends every run cancelled, exits %i",
    async ([signal, code]) => {
      const sim = await simulator({ planListDelayMs: HOLD_MS });
      const { path, db } = writeConfig(sim);
      const { child, done } = spawn(["sync", "--config", path]);
      // Both companies' plan lists are being held by the simulator: the sync is mid-download.
      await until("both plan lists held", () => sim.state.stats.held === sim.companies.length, child, done);
      const pid = child.pid;
      child.kill(signal);
      const r = await done;
      expect(r).toMatchObject({ code, signal: null });
      expect(r.stderr).toContain(
        `tas-sync sync: ${signal} received, stopping (Ctrl+C again to exit at once)`,
      );
      expect(r.stdout.trim().split("\n")).toEqual(
        sim.companies.flatMap((c) => [
          expect.stringMatching(new RegExp(`^company ${c.id}: cancelled .*fetched 0, inserted 0`)),
          "  ! cancelled: the process is stopping; nothing was written",
        ]),
      );
      const runs = rows<{ status: string; error: string }>(db, "SELECT status, error FROM sync_runs");
      expect(runs.map((x) => x.status)).toEqual(sim.companies.map(() => "cancelled"));
      expect(runs[0]?.error).toContain("nothing was written");
      expect(rows(db, "SELECT id FROM plans")).toEqual([]);
      expect(spoolDirsOf(pid)).toEqual([]);
    },
  );
});

describe("a signal to push --wait", () => {
  it("stops waiting at SIGINT, keeps the unsettled row queued, exits 130", async () => {
    // Every create answered 500: the row waits for its next attempt (BullMQ backoff), and the
    // test sends the signal once the first attempt was answered.
    const sim = await simulator({ errorRate: 1 }, 1);
    const { path, db } = writeConfig(sim, {
      http: { timeoutMs: 5000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
      push: { ratePerSecond: null, concurrency: 1, maxAttempts: 50, lockDurationMs: 1000 },
    });
    const seed = join(dir, `${randomUUID()}.ndjson`);
    const row = {
      company_id: 5251,
      project_id: 52511,
      key: "k1",
      scenario_name: "n1",
      source_file: "N.java",
    };
    writeFileSync(seed, `${JSON.stringify(row)}\n`);
    const { child, done } = spawn(["push", seed, "--wait", "--config", path]);
    await until("a create answered 500", () => sim.state.stats.count(CREATE_ROUTE, 500) > 0, child, done);
    child.kill("SIGINT");
    const r = await done;
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.stderr).toContain("tas-sync push: SIGINT received, stopping (Ctrl+C again to exit at once)");
    expect(r.stdout).toContain("stopped waiting: interrupted; unsettled rows stay queued");
    expect(rows(db, "SELECT key, status FROM scenario_requests")).toEqual([{ key: "k1", status: "queued" }]);
  });
});

describe("signals to the daemon and the simulator", () => {
  it("the daemon stops gracefully at the first SIGTERM and at once, exiting 143, at the second", async () => {
    const sim = await simulator({ planListDelayMs: HOLD_MS });
    // A grace period longer than the test: only the second signal can end the wait.
    const { path } = writeConfig(sim, { shutdownGraceMs: HOLD_MS, logLevel: "info" });
    const { child, done } = spawn(["daemon", "--no-server", "--no-push", "--config", path]);
    let stderr = "";
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    await until("a scheduled sync held", () => sim.state.stats.held > 0, child, done);
    child.kill("SIGTERM");
    await until("the graceful stop", () => stderr.includes("stopping: taking no new jobs"), child, done);
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    const r = await done;
    expect(r).toMatchObject({ code: 143, signal: null });
    expect(r.stderr).toContain("tas-sync daemon: SIGTERM received, stopping (Ctrl+C again to exit at once)");
    expect(r.stderr).toContain("tas-sync daemon: SIGTERM again: exiting at once");
  });

  it("the simulator stops at SIGINT and exits 130", async () => {
    const { child, done } = spawn(["simulate", "--port", "0", "--plans", "1"]);
    let stdout = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    await until("the simulator listening", () => stdout.includes("listening"), child, done);
    child.kill("SIGINT");
    const r = await done;
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.stderr).toContain("tas-sync simulate: SIGINT received, stopping (Ctrl+C again to exit at once)");
    expect(r.stderr).toContain("Simulator stopped.");
  });
});
