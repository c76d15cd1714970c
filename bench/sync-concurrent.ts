/**
 * bench:sync's concurrency phase: 8 companies whose plan lists each wait 1 s before their first
 * byte (the simulator's planListDelayMs), a few hundred plans each. Compares the serial sum
 * (each company synced alone, one after another) with one sync of all 8 at sync.concurrency 8.
 * Both go through runSyncCommand, the one-shot `tas-sync sync`, each into a fresh database.
 */
import { join } from "node:path";
import { request } from "undici";
import { runSyncCommand } from "../src/commands/sync.js";
import { type Config, parseConfig } from "../src/config/index.js";
import type { Logger } from "../src/log.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { fmt, type SpawnedSimulator, spawnSimulator, verdict } from "./support.js";

const COMPANIES = Number(process.env.BENCH_CONCURRENT_COMPANIES ?? 8);
const PLANS = Number(process.env.BENCH_CONCURRENT_PLANS ?? 300);
const DELAY_MS = 1000;
/** Wall time of the concurrent sync as a fraction of the serial sum, at most. */
const TARGET = 0.4;

/** Runs the phase in its own simulator (the delay must not reach the other phases); true on PASS. */
export async function concurrentPhase(dir: string, logger: Logger): Promise<boolean> {
  const sim = await spawnSimulator([
    "--companies",
    String(COMPANIES),
    "--plans",
    String(PLANS),
    "--reports",
    "0",
    "--plan-list-delay-ms",
    String(DELAY_MS),
  ]);
  try {
    console.log("");
    console.log(
      `${COMPANIES} companies x ${fmt(PLANS)} plans, every plan list waits ${fmt(DELAY_MS)} ms before its first byte (simulator planListDelayMs)`,
    );
    // Warm the simulator's serialization cache, so that the serial runs (first) do not pay for
    // it and the concurrent run does not. The delay applies to these fetches too: in parallel,
    // they cost one delay, untimed.
    await Promise.all(sim.companies.map((c) => fetchPlanList(sim.baseUrl, c.staticToken)));

    const serialCfg = configFor(sim, join(dir, "serial.db"), 1);
    const serial: number[] = [];
    for (const c of sim.companies) {
      serial.push(await timedSync(serialCfg, logger, c.id));
    }
    const serialMs = serial.reduce((a, b) => a + b, 0);
    const concurrentCfg = configFor(sim, join(dir, "concurrent.db"), COMPANIES);
    const concurrentMs = await timedSync(concurrentCfg, logger, undefined);
    const okSerial = await checkRuns(serialCfg);
    const okConcurrent = await checkRuns(concurrentCfg);
    const ratio = concurrentMs / serialMs;

    console.log(
      `${"serial sum: each company alone, one after another".padEnd(52)}${fmt(serialMs)} ms  (per company ${fmt(Math.min(...serial))} to ${fmt(Math.max(...serial))} ms)${okSerial ? "" : "  RUNS INCOMPLETE"}`,
    );
    console.log(
      `${`one sync of all ${COMPANIES} at sync.concurrency ${COMPANIES}`.padEnd(52)}${fmt(concurrentMs)} ms${okConcurrent ? "" : "  RUNS INCOMPLETE"}`,
    );
    console.log(
      "  (both via runSyncCommand, default http settings: 20 requests/s, 8 connections; the delay also held the untimed warm-up fetches, made in parallel before)",
    );
    const ok = ratio <= TARGET && okSerial && okConcurrent;
    console.log(
      `concurrent / serial sum   = ${fmt(ratio * 100, 1)}%  (target <= ${fmt(TARGET * 100)}%)  ${verdict(ok)}`,
    );
    return ok;
  } finally {
    await sim.stop();
  }
}

function configFor(sim: SpawnedSimulator, database: string, concurrency: number): Config {
  return parseConfig(
    {
      baseUrl: sim.baseUrl,
      database,
      // Plans only, each company with its own token (the plan list returns the caller's company).
      companies: sim.companies.map((c) => ({ id: c.id, reportIds: [], auth: { token: c.staticToken } })),
      sync: { concurrency },
      logLevel: "warn",
    },
    "(bench)",
  );
}

/** Wall time of one `tas-sync sync` (one company, or all when companyId is undefined). */
async function timedSync(cfg: Config, logger: Logger, companyId: number | undefined): Promise<number> {
  const lines: string[] = [];
  const t0 = performance.now();
  const code = await runSyncCommand(cfg, { companyId, logger, out: (l) => lines.push(l), progress: null });
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`sync exited ${code}: ${lines.join(" | ")}`);
  return ms;
}

/** Every company has exactly one succeeded run that inserted all its plans. */
async function checkRuns(cfg: Config): Promise<boolean> {
  const store = openSqliteStore(cfg.database.display);
  try {
    const runs = store.sqlite.prepare("SELECT company_id, status, inserted FROM sync_runs").all() as {
      company_id: number;
      status: string;
      inserted: number;
    }[];
    return (
      runs.length === cfg.companies.length &&
      runs.every((r) => r.status === "succeeded" && r.inserted === PLANS) &&
      new Set(runs.map((r) => r.company_id)).size === cfg.companies.length
    );
  } finally {
    await store.close();
  }
}

async function fetchPlanList(baseUrl: string, token: string): Promise<void> {
  const res = await request(`${baseUrl}/api/plans`, { headers: { authorization: `Bearer ${token}` } });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`warm-up GET /api/plans answered ${res.statusCode}`);
}
