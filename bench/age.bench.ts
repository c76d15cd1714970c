/**
 * npm run bench:age — what age costs: a database with a million old run records, 200,000 old
 * sync errors and 100,000 old rejected records against a fresh one, on SQLite and PostgreSQL.
 * Both hold the same company synced from the simulator (a child process); the aged one gets its
 * history bulk-inserted in SQL (./age-support.ts: negative ids, start times older than 91 days,
 * spread over 30 companies; a 31st, just added, has no run). Then, in turn (fresh, aged, aged, fresh, ...), the median of many:
 *   - `tas-sync status` (runStatus, in process: opens the store, reads Redis and the store);
 *   - a /metrics scrape (the daemon's Metrics, its freshness gauges read from the store);
 *   - the daemon's freshness check (FreshnessMonitor.check);
 *   - a no-change sync of the company.
 * Targets: each aged / fresh at most 1.2x. Exits 1 when one is missed.
 * `--store sqlite|postgres` (or BENCH_STORE) runs one store only.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { runStatus } from "../src/commands/status.js";
import type { CommandContext } from "../src/commands/types.js";
import { type Config, parseConfig } from "../src/config/index.js";
import { FreshnessMonitor } from "../src/daemon/freshness-monitor.js";
import { createLogger } from "../src/log.js";
import { Metrics } from "../src/metrics.js";
import { createClients } from "../src/runtime.js";
import { openStore, type Store } from "../src/store/open.js";
import { syncCompany } from "../src/sync/company.js";
import { freshness } from "../src/sync/freshness.js";
import { ageDatabase, historyCounts, recentRuns } from "./age-support.js";
import { BenchDatabases, fmt, median, Report, spawnSimulator } from "./support.js";

const PLANS = Number(process.env.BENCH_PLANS ?? 2000);
/** Scales the samples per operation (default 1: 60 status, 300 scrapes and checks, 16 syncs per side). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
/** BENCH_AGE_SCALE shrinks the history for a quick try (default 1: the figures). */
const SCALE = Number(process.env.BENCH_AGE_SCALE ?? 1);
const AGED = {
  runs: Math.round(1_000_000 * SCALE),
  errors: Math.round(200_000 * SCALE),
  rejected: Math.round(100_000 * SCALE),
};
const COMPANIES = 30;
const DAY_MS = 86_400_000;

type Kind = "sqlite" | "postgres";
const kindsOf = (argv: readonly string[]): Kind[] => {
  const i = argv.findIndex((a) => a === "--store" || a.startsWith("--store="));
  const arg = i < 0 ? process.env.BENCH_STORE : argv[i]?.includes("=") ? argv[i]?.slice(8) : argv[i + 1];
  if (arg === undefined) return ["sqlite", "postgres"];
  if (arg !== "sqlite" && arg !== "postgres") throw new Error(`--store is "${arg}": say sqlite or postgres`);
  return [arg];
};

const logger = createLogger({ level: "error", pretty: false });
const ms = (n: number) => `${fmt(n, 1)} ms`;
const x = (n: number) => `${fmt(n, 2)}x`;

/** One database with its config, store, clients and the daemon's parts over it. */
interface Side {
  name: "fresh" | "aged";
  cfg: Config;
  store: Store;
  close(): Promise<void>;
  status(): Promise<void>;
  scrape(): Promise<void>;
  check(): Promise<void>;
  sync(): Promise<void>;
}

async function side(
  name: Side["name"],
  database: string,
  sim: { baseUrl: string; token: string; companyId: number },
): Promise<Side> {
  const others = Array.from({ length: COMPANIES - 1 }, (_, i) => ({ id: 900_001 + i, auth: { token: "x" } }));
  const cfg = parseConfig(
    {
      baseUrl: sim.baseUrl,
      database,
      auth: { token: sim.token },
      // The last one was just added to the config: it has no run yet, fresh or aged.
      companies: [{ id: sim.companyId }, ...others, { id: 900_100, auth: { token: "x" } }],
      queuePrefix: `tas-bench-age-${randomUUID()}`,
      http: { maxRequestsPerSecond: 1000, timeoutMs: 60_000 },
    },
    "(bench)",
  );
  const ids = cfg.companies.map((c) => c.id);
  const store = await openStore(cfg.database);
  const clients = createClients(cfg, logger);
  const started = new Date();
  const states = async () => freshness(cfg, await store.runs.companyStates(ids), new Date(), started);
  const metrics = new Metrics({ freshness: states, queueCounts: async () => [] });
  const monitor = new FreshnessMonitor({ cfg, store, logger, states, sender: null });
  const ctx: CommandContext = {
    flags: { json: true },
    positionals: [],
    config: () => cfg,
    logger: async () => logger,
    out: () => {},
    stopSignal: new AbortController().signal,
  };
  const sync = async () => {
    const r = await syncCompany(
      {
        store,
        client: clients.clientFor(sim.companyId),
        logger,
        readAheadBytes: cfg.sync.readAheadBytes,
        schema: cfg.schema,
      },
      { companyId: sim.companyId, reportIds: [], trigger: "bench" },
    );
    if (r.status !== "succeeded") throw new Error(`${name} sync ${r.status}: ${r.errors.join("; ")}`);
  };
  return {
    name,
    cfg,
    store,
    close: async () => {
      await clients.close();
      await store.close();
      // status made the queues' keys under this run's prefix: leave none behind.
      const redis = new Redis(cfg.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        const keys = await redis.keys(`${cfg.queuePrefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    },
    status: async () => {
      await runStatus(ctx);
    },
    scrape: async () => {
      await metrics.registry.metrics();
    },
    check: () => monitor.check(),
    sync,
  };
}

async function phase(
  kind: Kind,
  sim: { baseUrl: string; token: string; companyId: number },
  dir: string,
  dbs: BenchDatabases,
  report: Report,
): Promise<void> {
  console.log("");
  console.log(kind === "sqlite" ? "SQLite" : "PostgreSQL");
  const database = async (label: string) =>
    kind === "sqlite" ? join(dir, `${label}.sqlite`) : await dbs.create();
  const fresh = await side("fresh", await database("fresh"), sim);
  const aged = await side("aged", await database("aged"), sim);
  try {
    // Both: the company synced, and one recent run of each other company (the state a daemon's
    // companies are in); the aged one has the history besides.
    for (const s of [fresh, aged]) {
      await s.sync();
      await recentRuns(
        s.store,
        s.cfg.companies.slice(1).map((c) => c.id),
        new Date(Date.now() - 60_000),
      );
    }
    const agingMs = await ageDatabase(aged.store, {
      ...AGED,
      companies: aged.cfg.companies.slice(0, COMPANIES).map((c) => c.id),
      before: new Date(Date.now() - 91 * DAY_MS),
      spacingSeconds: 31,
    });
    const counts = await historyCounts(aged.store);
    report.figure(
      "aged database",
      `${fmt(counts.sync_runs ?? 0)} runs, ${fmt(counts.sync_errors ?? 0)} sync errors, ${fmt(counts.rejected_records ?? 0)} rejected records (inserted in ${fmt(agingMs / 1000, 1)} s)`,
    );
    // A first pass of each, not measured: connections, prepared statements, the alert states.
    for (const s of [fresh, aged]) {
      await s.status();
      await s.scrape();
      await s.check();
      await s.sync();
    }
    // Each operation alternately on the fresh and the aged database, many times; the medians
    // are compared (a machine growing busier or quieter weighs on both alike).
    const ops: [string, number, (s: Side) => Promise<void>][] = [
      ["tas-sync status", 60 * ROUNDS, (s) => s.status()],
      ["/metrics scrape", 300 * ROUNDS, (s) => s.scrape()],
      ["freshness check", 300 * ROUNDS, (s) => s.check()],
      ["no-change sync", 16 * ROUNDS, (s) => s.sync()],
    ];
    for (const [label, times, op] of ops) {
      const samples: [number[], number[]] = [[], []];
      for (let i = 0; i < times; i++)
        for (const [k, s] of (i % 2 ? [aged, fresh] : [fresh, aged]).entries()) {
          const t0 = performance.now();
          await op(s);
          samples[(i % 2 ? 1 - k : k) as 0 | 1].push(performance.now() - t0);
        }
      const [f, a] = samples.map(median) as [number, number];
      report.figure(`  ${label}: fresh / aged (median of ${times})`, `${ms(f)} / ${ms(a)}`);
      report.target(`  ${label}, aged / fresh`, a / f, "at most", 1.2, x);
    }
  } finally {
    await fresh.close();
    await aged.close();
  }
}

async function main(): Promise<number> {
  const kinds = kindsOf(process.argv.slice(2));
  const report = new Report("bench:age");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-age-"));
  const dbs = new BenchDatabases();
  try {
    const simProc = await spawnSimulator(["--companies", "1", "--plans", String(PLANS), "--reports", "0"]);
    try {
      const company = simProc.companies[0];
      if (!company) throw new Error("simulator reported no company");
      const sim = { baseUrl: simProc.baseUrl, token: company.staticToken, companyId: company.id };
      console.log(
        `bench:age — ${fmt(PLANS)} plans of company ${sim.companyId}; aged: ${fmt(AGED.runs)} runs, ${fmt(AGED.errors)} sync errors, ${fmt(AGED.rejected)} rejected records over ${COMPANIES} companies; medians of fresh and aged in turn`,
      );
      for (const kind of kinds) await phase(kind, sim, dir, dbs, report);
    } finally {
      await simProc.stop();
    }
  } finally {
    await dbs.dropAll();
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`bench:age failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
