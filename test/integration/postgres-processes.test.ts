/**
 * Several processes on one PostgreSQL database, as on several machines: (a) two processes
 * applying the same company take turns on its advisory lock, and the newer snapshot is what
 * stays; (b) `push --wait` and a daemon, both on one database and one Redis, push a seed file
 * of parent/child chains: every scenario created exactly once, each after its parent.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execPath } from "node:process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseTarget } from "../../src/config/index.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import { ensureBuilt, ROOT, type Run, startCli } from "../support/built-cli.js";
import { TestDatabases } from "../support/postgres.js";
import { storeKind } from "../support/stores.js";
import { notOnce, type PushHarness, type SeedLine, seedRow, startPushHarness } from "./push-harness.js";

const databases = new TestDatabases();

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);
afterAll(async () => {
  await databases.dropAll();
});

interface Event {
  event: "apply" | "stale" | "op" | "done";
  label: string;
  at: number;
  i?: number;
  applied?: boolean;
}

/** Starts apply-child.mjs; `events` fills as it prints. With `gate`, it holds after its first op until the file exists. */
function applier(url: string, startedAt: string, label: string, ops = 15, msPerOp = 5, gate?: string) {
  const args = [url, "5251", startedAt, label, String(ops), String(msPerOp), ...(gate ? [gate] : [])];
  const child = spawn(execPath, [join(ROOT, "test/support/apply-child.mjs"), ...args], { cwd: ROOT });
  const events: Event[] = [];
  let buffer = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    buffer += d;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) if (line) events.push(JSON.parse(line) as Event);
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<number | null>((ok) => child.on("close", ok));
  return { events, done, stderr: () => stderr };
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

describe("two processes applying the same company", () => {
  let url: string;
  beforeAll(async () => {
    url = await databases.create();
    // Migrated once here: the children then only apply.
    const target = databaseTarget(url);
    if (target.dialect !== "postgres") throw new Error("not postgres");
    await (await openPostgresStore(target)).close();
  });

  async function plans(): Promise<string[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT plan_name FROM plans ORDER BY id");
      return rows.map((r) => r.plan_name as string);
    } finally {
      await client.end();
    }
  }

  /** A backend of this database waits for an advisory lock (the second applier, behind the first). */
  async function waitingForLock(): Promise<boolean> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND NOT l.granted AND a.datname = current_database()`,
      );
      return rows[0].n > 0;
    } finally {
      await client.end();
    }
  }

  /** The first applies until its first op, the second asks and waits for the lock, then the first goes on. */
  async function oneBehindTheOther(first: [string, string], second: [string, string]) {
    const dir = mkdtempSync(join(tmpdir(), "tas-gate-"));
    const gate = join(dir, "open");
    try {
      const a = applier(url, first[0], first[1], 40, 5, gate);
      await until(() => a.events.some((e) => e.event === "op"));
      const b = applier(url, second[0], second[1]);
      await until(async () => b.events.some((e) => e.event === "apply") && (await waitingForLock()));
      writeFileSync(gate, "");
      expect(await Promise.all([a.done, b.done]), a.stderr() + b.stderr()).toEqual([0, 0]);
      return [a, b] as const;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("never interleave: the second waits for the first's commit, and the newer snapshot stays", async () => {
    const [first, second] = await oneBehindTheOther(
      ["2025-03-01T10:00:00.000Z", "older"],
      ["2025-03-01T11:00:00.000Z", "newer"],
    );

    const firstDone = first.events.find((e) => e.event === "done") as Event;
    const secondAsked = second.events.find((e) => e.event === "apply") as Event;
    // It read the company's index before the first committed: that index went stale, and it
    // read the index again (now the first's) before it wrote anything.
    expect(second.events.map((e) => e.event).filter((e) => e === "apply" || e === "stale")).toEqual([
      "apply",
      "stale",
      "apply",
    ]);
    const secondOps = second.events.filter((e) => e.event === "op");
    expect(firstDone.applied).toBe(true);
    // The second asked while the first was writing, and its plan ran only after the first committed.
    expect(secondAsked.at).toBeLessThan(firstDone.at);
    expect(secondOps).toHaveLength(15);
    expect(Math.min(...secondOps.map((e) => e.at))).toBeGreaterThanOrEqual(firstDone.at);
    expect(second.events.at(-1)).toMatchObject({ event: "done", applied: true });
    // The newer snapshot rewrote plans 1..15 (and, listing no deletions, left the older's 16..40).
    expect(await plans()).toEqual([
      ...Array.from({ length: 15 }, (_, i) => `newer-${i + 1}`),
      ...Array.from({ length: 25 }, (_, i) => `older-${i + 16}`),
    ]);
  });

  it("an older snapshot that waited behind a newer one is superseded, and writes nothing", async () => {
    const [, second] = await oneBehindTheOther(
      ["2025-03-02T11:00:00.000Z", "newest"],
      ["2025-03-02T10:00:00.000Z", "stale"],
    );
    expect(second.events.filter((e) => e.event === "op")).toEqual([]);
    expect(second.events.at(-1)).toMatchObject({ event: "done", applied: false });
    expect(await plans()).toEqual(Array.from({ length: 40 }, (_, i) => `newest-${i + 1}`));
  });
});

describe("push from two processes on one database and one Redis", () => {
  const kind = storeKind("postgres");
  let h: PushHarness;
  let url: string;
  beforeAll(async () => {
    h = await startPushHarness(kind, {
      sim: { faults: { latencyMs: 5 } },
      config: {
        logLevel: "debug",
        push: { ratePerSecond: 300, concurrency: 4, maxAttempts: 3, lockDurationMs: 2000 },
      },
    });
    url = h.database;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await kind.cleanup();
  });

  /** 100 chains: suite -> case -> step, each row after its parent in the file or not. */
  function chains(n: number): SeedLine[] {
    const rows: SeedLine[] = [];
    for (let i = 0; i < n; i++) {
      const suite = `suite-${i}`;
      rows.push(seedRow(`step-${i}`, { parent_key: `case-${i}` }));
      rows.push(seedRow(suite));
      rows.push(seedRow(`case-${i}`, { parent_key: suite }));
    }
    return rows;
  }

  it("creates every row exactly once, parents before children", async () => {
    const file = h.seed("chains.ndjson", chains(100));
    const daemon = startCli(["daemon", "--no-sync", "--no-server", "--config", h.configPath]);
    let daemonOut = "";
    daemon.child.stdout.on("data", (d) => {
      daemonOut += d;
    });
    daemon.child.stderr.on("data", (d) => {
      daemonOut += d;
    });
    await until(() => daemonOut.includes("daemon started") || daemon.child.exitCode !== null);
    let pushed: Run;
    try {
      pushed = await startCli(["push", file, "--wait", "--config", h.configPath]).done;
    } finally {
      daemon.child.kill("SIGTERM");
    }
    const stopped = await daemon.done;
    expect(
      pushed.code,
      pushed.stderr
        .split("\n")
        .filter((l) => !l.includes('"level":20'))
        .join("\n"),
    ).toBe(0);
    expect(stopped.code, daemonOut).toBe(0);

    const sim = await h.scenarios();
    const keys = Array.from({ length: 100 }, (_, i) => [`suite-${i}`, `case-${i}`, `step-${i}`]).flat();
    expect(notOnce(await h.createdPerKey(), keys)).toEqual([]);
    expect(sim).toHaveLength(300);
    const byName = new Map(sim.map((s) => [s.scenario_name, s]));
    for (let i = 0; i < 100; i++) {
      const [suite, kase, step] = [`suite-${i}`, `case-${i}`, `step-${i}`].map((k) => byName.get(k));
      expect(suite?.parent_id).toBeNull();
      expect(kase?.parent_id).toBe(suite?.id);
      expect(step?.parent_id).toBe(kase?.id);
      expect((kase?.created_at_ms ?? 0) >= (suite?.created_at_ms ?? Infinity)).toBe(true);
      expect((step?.created_at_ms ?? 0) >= (kase?.created_at_ms ?? Infinity)).toBe(true);
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT status, count(*)::int AS n, count(DISTINCT scenario_id)::int AS ids FROM scenario_requests GROUP BY status",
      );
      expect(rows).toEqual([{ status: "created", n: 300, ids: 300 }]);
    } finally {
      await client.end();
    }
    // Both processes took jobs from the shared queue.
    const creates = (out: string) =>
      out.split("\n").filter((l) => l.includes('"msg":"creating scenario"')).length;
    const byPush = creates(pushed.stdout + pushed.stderr);
    const byDaemon = creates(daemonOut);
    expect(byPush + byDaemon).toBeGreaterThanOrEqual(300);
    expect(byPush).toBeGreaterThan(0);
    expect(byDaemon).toBeGreaterThan(0);
    console.info(`push --wait created ${byPush}, the daemon ${byDaemon}`);
  });
});
