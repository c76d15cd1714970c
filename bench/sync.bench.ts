/**
 * npm run bench:sync — 100,000 plans (a third mobile) of one company, from the simulator in a
 * child process. Each side runs in a process of its own, at least three times, the compared
 * sides in turn (raw, sync, raw, sync...); the best run of each side is compared. Baselines,
 * measured in the same run:
 *   - download + JSON.parse of the list: what a no-change re-sync may cost at most;
 *   - the raw pipeline (./sync/raw-sqlite.ts): download, JSON.parse, the same rows through
 *     prepared inserts in one transaction, no history; its database's size too.
 * With `--store postgres` (or BENCH_STORE=postgres) the same into PostgreSQL against the raw
 * COPY pipeline. Then 8 companies whose plan lists are slow to start: one sync of all 8 at
 * sync.concurrency 8 against the sum of syncing each alone (./sync-concurrent.ts).
 * `--beside N` (or BENCH_BESIDE; 0 to 8): N CPU-bound processes run beside every phase but
 * that last one, a loaded day emulated (the targets stay the same; one more checks that they
 * ran throughout).
 * Exits 1 when a target is missed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { createLogger } from "../src/log.js";
import {
  BenchDatabases,
  bestInTurn,
  countOption,
  fmt,
  MB,
  median,
  Report,
  spawnBusy,
  spawnSimulator,
} from "./support.js";
import type { ChildResult } from "./sync/child.js";
import { all, kb, mb, ms, type Runs, type Sim, waited, x } from "./sync/common.js";
import { dirtyPhase } from "./sync/dirty-phase.js";
import { runChild } from "./sync/run-child.js";
import { concurrentPhase } from "./sync-concurrent.js";

const PLANS = Number(process.env.BENCH_PLANS ?? 100_000);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3));

/**
 * `--store postgres` / `--store=postgres`, else BENCH_STORE; default sqlite (SQLite only). A
 * flag without its value is refused, not read as the default.
 */
function storeOption(argv: readonly string[]): "sqlite" | "postgres" {
  const i = argv.findIndex((a) => a === "--store" || a.startsWith("--store="));
  const arg = i < 0 ? undefined : argv[i]?.includes("=") ? argv[i]?.slice(8) : (argv[i + 1] ?? "");
  const value = arg ?? process.env.BENCH_STORE ?? "sqlite";
  if (value !== "sqlite" && value !== "postgres")
    throw new Error(`${arg === undefined ? "BENCH_STORE" : "--store"} is "${value}": say sqlite or postgres`);
  return value;
}

async function main(): Promise<number> {
  const store = storeOption(process.argv.slice(2));
  const beside = countOption(process.argv.slice(2), "beside", "BENCH_BESIDE", 8);
  const report = new Report("bench:sync");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-sync-"));
  try {
    const simProc = await spawnSimulator(["--companies", "1", "--plans", String(PLANS), "--reports", "0"]);
    let busy: ReturnType<typeof spawnBusy> | undefined;
    try {
      busy = spawnBusy(beside);
      const company = simProc.companies[0];
      if (!company) throw new Error("simulator reported no company");
      const sim: Sim = { baseUrl: simProc.baseUrl, token: company.staticToken, companyId: company.id };
      // Warm the simulator's serialization cache so that no side pays for it.
      const warm = await request(`${sim.baseUrl}/api/plans`, {
        headers: { authorization: `Bearer ${sim.token}` },
      });
      const bodyBytes = (await warm.body.arrayBuffer()).byteLength;
      console.log(
        `bench:sync — ${fmt(PLANS)} plans of company ${sim.companyId}, list ${fmt(bodyBytes / 1024 / 1024, 1)} MiB; best of ${ROUNDS} runs per side, each in its own process${beside ? `; beside ${beside} CPU-bound process${beside > 1 ? "es" : ""}` : ""}`,
      );
      await sqlitePhase(sim, dir, report);
      if (store === "postgres") await postgresPhase(sim, report);
      await dirtyPhase(sim, dir, store, ROUNDS, report);
      if (beside > 0) {
        const ended = busy.ended();
        report.check(
          "CPU-bound processes beside the phases",
          ended === 0,
          ended === 0
            ? `(${beside}, all of them throughout)`
            : `(${ended} of ${beside} ended early: less load)`,
        );
      }
    } finally {
      await busy?.stop();
      await simProc.stop();
    }
    // Its own simulator: the plan-list delay must reach nothing else.
    const ok = await concurrentPhase(dir, createLogger({ level: "warn", pretty: false }));
    report.check("concurrency phase", ok, "(see its lines above)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

async function sqlitePhase(sim: Sim, dir: string, report: Report): Promise<void> {
  console.log("");
  console.log("SQLite");
  let n = 0;
  const fresh = () => join(dir, `db-${n++}.sqlite`);
  const [download] = (await bestInTurn(
    ROUNDS,
    [() => runChild({ mode: "download", ...sim })],
    (r) => r.ms,
  )) as [Runs];
  // In turn: raw, sync, sync without observing, raw... (the last is compared further down).
  const [raw, sync, off] = (await bestInTurn(
    ROUNDS,
    [
      () => runChild({ mode: "raw", ...sim, database: fresh() }),
      () => runChild({ mode: "sync", ...sim, database: fresh() }),
      () => runChild({ mode: "sync", ...sim, database: fresh(), observe: false }),
    ],
    (r) => r.ms,
  )) as [Runs, Runs, Runs];
  const resync = sync.all.reduce((a, b) => ((b.resyncMs ?? 0) < (a.resyncMs ?? 0) ? b : a));
  const worst = (pick: (r: ChildResult) => number) => Math.max(...sync.all.map(pick));
  const s = sync.best;
  if (s.plans !== raw.best.plans || s.plans !== PLANS)
    throw new Error(
      `the sides wrote different lists: sync ${s.plans}, raw ${raw.best.plans}, expected ${PLANS}`,
    );
  report.figure("download + JSON.parse", `${ms(download.best.ms)} ${all(download.all, (r) => r.ms)}`);
  report.figure(
    "raw pipeline (prepared inserts, no history)",
    `${ms(raw.best.ms)} = ${fmt(PLANS / (raw.best.ms / 1000))} plans/s ${all(raw.all, (r) => r.ms)}, database ${mb(raw.best.dbBytes ?? 0)}`,
  );
  report.figure(
    "full sync",
    `${ms(s.ms)} = ${fmt(PLANS / (s.ms / 1000))} plans/s ${all(sync.all, (r) => r.ms)}, database ${mb(s.dbBytes ?? 0)}`,
  );
  report.figure(
    "  CPU time, full sync / raw pipeline",
    `${ms(s.cpuMs ?? 0)} / ${ms(raw.best.cpuMs ?? 0)} = ${x((s.cpuMs ?? 0) / (raw.best.cpuMs ?? 1))} (all threads, of the fastest runs; what a side costs when no second core is free) ${all(sync.all, (r) => r.cpuMs)}`,
  );
  if (s.mainCpuMs !== undefined)
    report.figure(
      "    of it on the main thread",
      `${ms(s.mainCpuMs)} (the thread that holds the write lock: a loaded day stretches it) ${all(sync.all, (r) => r.mainCpuMs)}`,
    );
  report.figure("  write lock held (full sync)", `${ms(s.writeMs ?? 0)} ${all(sync.all, (r) => r.writeMs)}`);
  report.figure(
    "    of it waiting for the worker's reading",
    `${waited(s)} (the lock's share that reading, not writing, held) ${all(sync.all, (r) => r.readerWaitMs)}`,
  );
  report.figure(
    "no-change re-sync",
    `${ms(resync.resyncMs ?? 0)} ${all(sync.all, (r) => r.resyncMs)}, ${fmt(resync.resyncUnchanged ?? 0)} unchanged`,
  );
  report.figure(
    "  write lock held (re-sync)",
    `${ms(resync.resyncWriteMs ?? 0)} ${all(sync.all, (r) => r.resyncWriteMs)}`,
  );
  report.figure(
    "  bytes written by the full sync (storage)",
    `${mb(s.fullWriteBytes ?? 0)} (write_bytes of /proc/self/io)`,
  );
  report.figure(
    "    of them never reached the disk",
    `${mb(s.fullCancelledBytes ?? 0)} (cancelled_write_bytes: the spool, deleted before writeback)`,
  );
  report.figure(
    "  bytes written by the re-sync (storage)",
    `${kb(worst((r) => r.resyncWriteBytes ?? 0))} (all write() calls: ${kb(worst((r) => r.resyncWchar ?? 0))})`,
  );
  report.figure(
    "peak RSS of the sync process",
    `${fmt(worst((r) => r.rssMb))} MB ${all(sync.all, (r) => r.rssMb)}`,
  );
  report.figure(
    "  after its other re-syncs",
    `${fmt(worst((r) => r.rssRepeatedMb ?? 0))} MB ${all(sync.all, (r) => r.rssRepeatedMb)} (eight no-change re-syncs in all)`,
  );
  console.log("");
  report.target("full sync / raw pipeline (plans/s)", raw.best.ms / s.ms, "at least", 0.9, x);
  report.target(
    "no-change re-sync / download + JSON.parse",
    (resync.resyncMs ?? 0) / download.best.ms,
    "at most",
    1,
    x,
  );
  report.target(
    "bytes written by a no-change re-sync",
    worst((r) => r.resyncWriteBytes ?? 0),
    "at most",
    5 * MB,
    mb,
  );
  report.target("database / raw pipeline's", (s.dbBytes ?? 0) / (raw.best.dbBytes ?? 1), "at most", 1.3, x);
  report.target(
    "peak RSS of a sync (MB)",
    worst((r) => r.rssMb),
    "at most",
    300,
    (v) => `${fmt(v)}`,
  );
  report.target(
    "peak RSS after eight no-change re-syncs (MB)",
    worst((r) => r.rssRepeatedMb ?? 0),
    "at most",
    300,
    (v) => `${fmt(v)}`,
  );

  // The same syncs without observing the records' schema (schema.observe false): what observing costs.
  console.log("");
  const offResync = Math.min(...off.all.map((r) => r.resyncMs ?? 0));
  report.figure("full sync, schema.observe off", `${ms(off.best.ms)} ${all(off.all, (r) => r.ms)}`);
  report.figure(
    "no-change re-sync, schema.observe off",
    `${ms(offResync)} ${all(off.all, (r) => r.resyncMs)}`,
  );
  report.figure("peak RSS, schema.observe off", `${fmt(Math.max(...off.all.map((r) => r.rssMb)))} MB`);
  report.target("full sync, observing / not", s.ms / off.best.ms, "at most", 1.1, x);
  // The re-syncs' target from pairs run in turn in each observing process (see OBSERVE_PAIRS).
  const pairs = sync.all.map((r) => r.pairedResyncMs ?? { observing: [], not: [] });
  if (pairs.every((p) => p.not.length === 0)) throw new Error("no sync process ran re-syncs in turn");
  const [on, not] = [median(pairs.flatMap((p) => p.observing)), median(pairs.flatMap((p) => p.not))];
  report.figure(
    "no-change re-syncs in turn, observing / not",
    `${ms(on)} / ${ms(not)} (medians of ${pairs.reduce((n, p) => n + p.not.length, 0)} pairs, each pair in one process)`,
  );
  report.target("no-change re-sync, observing / not", on / not, "at most", 1.05, x);
}

async function postgresPhase(sim: Sim, report: Report): Promise<void> {
  console.log("");
  console.log("PostgreSQL");
  const dbs = new BenchDatabases();
  try {
    const [raw, sync] = (await bestInTurn(
      ROUNDS,
      [
        async () => runChild({ mode: "raw", ...sim, database: await dbs.create() }),
        async () => runChild({ mode: "sync", ...sim, database: await dbs.create() }),
      ],
      (r) => r.ms,
    )) as [Runs, Runs];
    const s = sync.best;
    const resync = sync.all.reduce((a, b) => ((b.resyncMs ?? 0) < (a.resyncMs ?? 0) ? b : a));
    report.figure(
      "raw pipeline (COPY per table, no history)",
      `${ms(raw.best.ms)} = ${fmt(PLANS / (raw.best.ms / 1000))} plans/s ${all(raw.all, (r) => r.ms)}`,
    );
    report.figure(
      "full sync",
      `${ms(s.ms)} = ${fmt(PLANS / (s.ms / 1000))} plans/s ${all(sync.all, (r) => r.ms)}`,
    );
    report.figure(
      "  write transaction open (full sync)",
      `${ms(s.writeMs ?? 0)} ${all(sync.all, (r) => r.writeMs)}`,
    );
    report.figure(
      "    of it waiting for the worker's reading",
      `${waited(s)} ${all(sync.all, (r) => r.readerWaitMs)}`,
    );
    report.figure("no-change re-sync", `${ms(resync.resyncMs ?? 0)} ${all(sync.all, (r) => r.resyncMs)}`);
    report.figure("peak RSS of the sync process", `${fmt(Math.max(...sync.all.map((r) => r.rssMb)))} MB`);
    console.log("");
    report.target("full sync / raw COPY pipeline (plans/s)", raw.best.ms / s.ms, "at least", 0.7, x);
    const written = Math.max(...sync.all.map((r) => r.resyncPlanRowsWritten ?? -1));
    report.check("plan rows a no-change re-sync writes", written === 0, `${fmt(written)} (xmin moved)`);
  } finally {
    await dbs.dropAll();
  }
}

/**
 * Bad elements kept in the list, as a real service keeps them for weeks: one without a usable
 * id, one whose id is fine but not the rest, and one of 1 MB. Their steady state (a no-change
 * re-sync) must cost what the clean one does: no plan row written, about the download.
 */
main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`bench:sync failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
