/**
 * npm run bench:soak — a daemon's life in minutes, on SQLite: BENCH_SOAK_RUNS (default 300)
 * syncs of one company of BENCH_PLANS (default 2,000) plans from the simulator (a child
 * process), 10 plans changed before each (their plan_name, through the simulator's admin API),
 * with three bad elements kept in the list all along: a bare string (no usable id), a plan
 * whose `enabled` is text (a usable id that fails validation) and a 1 MB one (a usable id, a
 * 1 MB description, the same flaw). Before the last 50 runs the database is aged as bench:age
 * ages it (a million old runs, 200,000 old sync errors, 100,000 old rejected records); after
 * them, a prune (its figures, and a check that every run a version names is still there).
 * Prints the median run time of the first and last 50 runs, the bytes written per run
 * (write_bytes of /proc/self/io around each sync), and the database growth per run (before the
 * aging) against the bytes of the changed content (the changed plans' JSON).
 * A run's time is measured twice: wall time, and the CPU time this process spent in it (the
 * sync runs in this process; the simulator serves from its own). The late / early target is
 * on CPU time: on a shared two-core machine other processes stretch a run's wall time by 2-3x
 * from one minute to the next, which says nothing of the database's age; CPU time does not
 * move with them (both medians are printed).
 * Targets: late / early median (CPU) at most 1.1x; growth per run at most 8x the changed content;
 * bytes written per run at most 2 MB. Exits 1 when one is missed.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { parseConfig } from "../src/config/index.js";
import { createLogger } from "../src/log.js";
import { prune } from "../src/retention/prune.js";
import { createClients } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import type { SqliteStore } from "../src/store/sqlite/index.js";
import { syncCompany } from "../src/sync/company.js";
import { ageDatabase, historyCounts } from "./age-support.js";
import { fmt, MB, median, Report, spawnSimulator } from "./support.js";

const PLANS = Number(process.env.BENCH_PLANS ?? 2000);
const RUNS = Math.max(120, Number(process.env.BENCH_SOAK_RUNS ?? 300));
const CHANGED = 10;
const WINDOW = 50;
const DAY_MS = 86_400_000;
const BAD_IDS = { string: 990_001, invalid: 990_002, big: 990_003 };
/** BENCH_SOAK_BAD=0: the same soak with a clean list (what the bad elements cost). */
const BAD = process.env.BENCH_SOAK_BAD !== "0";

const ms = (n: number) => `${fmt(n, 1)} ms`;
const x = (n: number) => `${fmt(n, 2)}x`;
const kb = (n: number) => `${fmt(n / 1000, 1)} kB`;

function writeBytes(): number {
  const text = readFileSync("/proc/self/io", "utf8");
  return Number(/^write_bytes: (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** The admin API of the simulator. */
function admin(baseUrl: string, companyId: number) {
  const url = (path: string) => `${baseUrl}/__admin/companies/${companyId}/plans${path}`;
  return {
    async ids(): Promise<number[]> {
      const res = await request(url(""));
      return ((await res.body.json()) as { planIds: number[] }).planIds;
    },
    async get(id: number): Promise<Record<string, unknown>> {
      const res = await request(url(`/${id}`));
      return (await res.body.json()) as Record<string, unknown>;
    },
    /** Puts the element; returns the bytes of its JSON. */
    async put(id: number, value: unknown): Promise<number> {
      const body = JSON.stringify(value);
      const res = await request(url(`/${id}`), { method: "PUT", body });
      await res.body.dump();
      if (res.statusCode >= 300) throw new Error(`PUT plan ${id}: ${res.statusCode}`);
      return Buffer.byteLength(body);
    },
  };
}

/** The database's bytes, its WAL checkpointed into it first. */
function databaseBytes(store: SqliteStore): number {
  store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  return statSync(store.path).size;
}

async function main(): Promise<number> {
  const report = new Report("bench:soak");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-soak-"));
  const logger = createLogger({ level: "error", pretty: false });
  try {
    const simProc = await spawnSimulator(["--companies", "1", "--plans", String(PLANS), "--reports", "0"]);
    try {
      const company = simProc.companies[0];
      if (!company) throw new Error("simulator reported no company");
      const sim = admin(simProc.baseUrl, company.id);
      const planIds = (await sim.ids()).filter((id) => id < BAD_IDS.string);
      const template = await sim.get(planIds[0] as number);
      // The bad elements, there from the start and never fixed.
      if (BAD) {
        await sim.put(BAD_IDS.string, "just a string");
        await sim.put(BAD_IDS.invalid, { ...template, id: BAD_IDS.invalid, enabled: "yes" });
        await sim.put(BAD_IDS.big, {
          ...template,
          id: BAD_IDS.big,
          enabled: "no",
          description: "x".repeat(1024 * 1024),
        });
      }
      console.log(
        `bench:soak — ${fmt(RUNS)} syncs of ${fmt(planIds.length)} plans of company ${company.id} on SQLite, ${CHANGED} plans changed before each, ${BAD ? "3 bad elements (a string, an invalid plan, a 1 MB invalid plan) in the list" : "a clean list (BENCH_SOAK_BAD=0)"}; the database aged before the last ${WINDOW}`,
      );
      const database = join(dir, "soak.sqlite");
      const cfg = parseConfig(
        {
          baseUrl: simProc.baseUrl,
          database,
          auth: { token: company.staticToken },
          companies: [{ id: company.id }],
          http: { maxRequestsPerSecond: 1000, timeoutMs: 60_000 },
        },
        "(bench)",
      );
      const store = (await openStore(cfg.database)) as SqliteStore;
      const clients = createClients(cfg, logger);
      const runMs: number[] = [];
      const runCpuMs: number[] = [];
      const written: number[] = [];
      const changedBytes: number[] = [];
      let rejected = 0;
      let sizeAfterFirst = 0;
      let sizeBeforeAging = 0;
      try {
        const sync = async () => {
          const w0 = writeBytes();
          const t0 = performance.now();
          const c0 = process.cpuUsage();
          const r = await syncCompany(
            {
              store,
              client: clients.clientFor(company.id),
              logger,
              readAheadBytes: cfg.sync.readAheadBytes,
              schema: cfg.schema,
            },
            { companyId: company.id, reportIds: [], trigger: "bench" },
          );
          const t = performance.now() - t0;
          const c = process.cpuUsage(c0);
          if (r.status !== "succeeded" && r.status !== "partial")
            throw new Error(`sync ${r.status}: ${r.errors.join("; ")}`);
          rejected = r.counts.rejected;
          return { ms: t, cpuMs: (c.user + c.system) / 1000, bytes: writeBytes() - w0 };
        };
        await sync(); // the full sync: not one of the soak's runs
        sizeAfterFirst = databaseBytes(store);
        let next = 0;
        for (let run = 1; run <= RUNS; run++) {
          if (run === RUNS - WINDOW + 1) {
            sizeBeforeAging = databaseBytes(store);
            const agingMs = await ageDatabase(store, {
              runs: 1_000_000,
              errors: 200_000,
              rejected: 100_000,
              companies: [company.id, ...Array.from({ length: 29 }, (_, i) => 900_001 + i)],
              before: new Date(Date.now() - 91 * DAY_MS),
              spacingSeconds: 31,
            });
            report.figure("aged before the last 50 runs", `in ${fmt(agingMs / 1000, 1)} s`);
          }
          let bytes = 0;
          for (let k = 0; k < CHANGED; k++) {
            const id = planIds[next++ % planIds.length] as number;
            const plan = await sim.get(id);
            bytes += await sim.put(id, {
              ...plan,
              plan_name: `soak ${run}.${k} ${String(plan.plan_name ?? "")}`.slice(0, 120),
            });
          }
          changedBytes.push(bytes);
          const r = await sync();
          runMs.push(r.ms);
          runCpuMs.push(r.cpuMs);
          written.push(r.bytes);
          if (run % 50 === 0) console.log(`  run ${run}: ${ms(r.ms)}, ${kb(r.bytes)} written`);
        }
        const early = median(runMs.slice(0, WINDOW));
        const late = median(runMs.slice(-WINDOW));
        const earlyCpu = median(runCpuMs.slice(0, WINDOW));
        const lateCpu = median(runCpuMs.slice(-WINDOW));
        const before = runMs.length - WINDOW;
        const growthPerRun = (sizeBeforeAging - sizeAfterFirst) / before;
        const changedPerRun = changedBytes.reduce((a, b) => a + b, 0) / changedBytes.length;
        const writtenPerRun = written.reduce((a, b) => a + b, 0) / written.length;
        console.log("");
        report.figure("records rejected per run", `${fmt(rejected)}`);
        report.figure(
          "median run, first 50 / last 50 (aged)",
          `${ms(early)} / ${ms(late)} wall (${fmt(late / early, 2)}x)`,
        );
        report.figure("median run CPU, first 50 / last 50", `${ms(earlyCpu)} / ${ms(lateCpu)}`);
        report.figure(
          "bytes written per run (storage)",
          `mean ${kb(writtenPerRun)}, median ${kb(median(written))}, max ${kb(Math.max(...written))}`,
        );
        report.figure(
          "database growth per run (before aging)",
          `${kb(growthPerRun)} (${fmt(sizeAfterFirst / MB, 1)} MB after the full sync, ${fmt(sizeBeforeAging / MB, 1)} MB after ${fmt(before)} runs)`,
        );
        report.figure("changed content per run", `${kb(changedPerRun)} (${CHANGED} plans' JSON)`);
        // A prune of the aged database, as the daemon's daily one.
        const pruned = await prune(store, cfg.retention);
        const counts = await historyCounts(store);
        report.figure(
          "prune of the aged database",
          `${fmt(pruned.removed.sync_runs)} runs, ${fmt(pruned.removed.sync_errors)} errors, ${fmt(pruned.removed.rejected_records)} rejected records in ${fmt(pruned.durationMs / 1000, 1)} s (${fmt(pruned.batches)} batches, longest ${fmt(pruned.longestBatchMs)} ms, ${fmt(pruned.slowBatches)} over 100 ms); left ${fmt(counts.sync_runs ?? 0)} runs`,
        );
        const orphans = store.sqlite
          .prepare(
            `SELECT count(*) FROM (SELECT run_id FROM plan_versions UNION SELECT run_id FROM report_versions) v
             WHERE v.run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sync_runs r WHERE r.id = v.run_id)`,
          )
          .pluck()
          .get() as number;
        console.log("");
        report.target("median run CPU, last 50 / first 50", lateCpu / earlyCpu, "at most", 1.1, x);
        report.target(
          "database growth per run / changed content",
          growthPerRun / changedPerRun,
          "at most",
          8,
          x,
        );
        report.target("bytes written per run (MB)", writtenPerRun / MB, "at most", 2, (v) => fmt(v, 2));
        report.target("longest prune batch (ms)", pruned.longestBatchMs, "at most", 100, (v) => fmt(v));
        report.check("runs named by versions, after the prune", orphans === 0, `${fmt(orphans)} missing`);
      } finally {
        await clients.close();
        await store.close();
      }
    } finally {
      await simProc.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`bench:soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
