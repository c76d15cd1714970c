/**
 * npm run bench:push — the push side against the simulator (a child process) and a real Redis.
 * 1. 10,000 rows with no rate limit: creations/s, against the simulator's raw capacity for the
 *    same POST (a plain undici loop at the same concurrency), measured in the same run: half
 *    just before the push and half just after, so that both see the same machine. Run at
 *    push.concurrency 16 and 64, three rounds each after a warm-up of both sides; the target
 *    is judged on the median round at the last level (64, a bulk push's setting).
 * 2. 3,000 rows at ratePerSecond 200: creations per calendar second as the simulator saw them.
 * 3. A 100,000-row NDJSON file: rows/s to validate, record in the outbox and enqueue (no worker),
 *    as a ratio to raw BullMQ addBulk of as many minimal jobs in the same run (./push-enqueue.ts).
 * Each phase has its own BullMQ prefix under tas-bench-<uuid>; every key is deleted at the end.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, parseConfig } from "../src/config/index.js";
import { createLogger, type Logger } from "../src/log.js";
import { PushReconciler } from "../src/push/reconcile.js";
import { loadSeed, submit } from "../src/push/submit.js";
import { PushQueue } from "../src/queue/push.js";
import { createClients } from "../src/runtime.js";
import type { StatusCounts } from "../src/store/port-outbox.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { enqueuePhase } from "./push-enqueue.js";
import {
  deleteKeys,
  perSecond,
  type RawTarget,
  rawCreateLoop,
  simScenarios,
  writeSeed,
} from "./push-support.js";
import { fmt, peakRssMb, Report, type SpawnedSimulator, spawnSimulator, verdict } from "./support.js";

const ROWS = Number(process.env.BENCH_PUSH_ROWS ?? 10_000);
/**
 * Rounds of (raw half, push, raw half) per no-limit level; the ratio judged is their median.
 * One round's raw halves last a quarter second each, and on two shared cores a single round
 * moved by several points from run to run.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Rows of each side's warm-up before a no-limit measurement. */
const WARM_ROWS = Number(process.env.BENCH_WARM_ROWS ?? 3_000);
const RATE_ROWS = Number(process.env.BENCH_RATE_ROWS ?? 3_000);
const ENQUEUE_ROWS = Number(process.env.BENCH_ENQUEUE_ROWS ?? 100_000);
/** push.concurrency of the rate-limited phase. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * push.concurrency levels of the no-limit phase; the target is judged at the last. A push
 * that nothing limits is a bulk push, and a bulk push runs many creates at once: each job
 * spends most of its time waiting for the service, and jobs finishing together share a
 * commit and a Redis write. 16 is shown too, to see how the ratio moves with concurrency.
 */
const NOLIMIT_LEVELS = (process.env.BENCH_NOLIMIT_CONCURRENCY ?? "16,64").split(",").map(Number);
const RATE = 200;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** Comma-separated subset of phases to run while working on one (default: all). */
const ONLY = new Set((process.env.BENCH_ONLY ?? "nolimit,rate,enqueue").split(","));

interface Env {
  sim: SpawnedSimulator;
  company: SpawnedSimulator["companies"][number];
  dir: string;
  prefix: string;
  logger: Logger;
  /** Aborted on Ctrl+C / SIGTERM: the running phase stops, then everything is cleaned up. */
  signal: AbortSignal;
}

/** Writes a seed file of `rows` rows of the bench company, names starting with `tag`. */
function seedFile(env: Env, name: string, rows: number, tag: string): string {
  const path = join(env.dir, name);
  writeSeed(path, { companyId: env.company.id, projectIds: env.company.projectIds, rows, tag });
  return path;
}

function configFor(env: Env, phase: string, ratePerSecond: number | null, concurrency = CONCURRENCY): Config {
  return parseConfig(
    {
      baseUrl: env.sim.baseUrl,
      database: join(env.dir, `${phase}.db`),
      auth: { token: env.company.staticToken },
      companies: [{ id: env.company.id }],
      redisUrl: REDIS_URL,
      queuePrefix: `${env.prefix}-${phase}`,
      // The client's own per-host cap must not be what limits: the push limit is measured.
      http: { maxRequestsPerSecond: 1_000_000, connections: concurrency, timeoutMs: 30_000 },
      push: { ratePerSecond, concurrency },
      logLevel: "warn",
    },
    "(bench)",
  );
}

/** Seed file -> outbox -> queue -> workers in this process, until every row is settled. */
async function pushAll(
  env: Env,
  cfg: Config,
  seedPath: string,
): Promise<{ counts: StatusCounts; lastSettledMs: number; cpuMs: number }> {
  const store = openSqliteStore(cfg.database.display);
  const clients = createClients(cfg, env.logger);
  const queue = new PushQueue({ cfg, outbox: store.outbox, clients, logger: env.logger });
  try {
    const seed = await loadSeed(cfg, seedPath);
    if (seed.problems.length) throw new Error(`seed file has ${seed.problems.length} problem(s)`);
    const batchId = randomUUID();
    const reconciler = new PushReconciler(store.outbox, queue, env.logger);
    let cpu = process.cpuUsage();
    const { waited } = await submit({ outbox: store.outbox, jobs: queue, reconciler }, seed, {
      batchId,
      onSubmitted: () => {
        cpu = process.cpuUsage();
      },
      wait: {
        startWorker: () => queue.startWorker(),
        pollMs: 500,
        signal: env.signal,
        reconcileEveryMs: cfg.push.reconcileEveryMs,
      },
    });
    const result = waited as NonNullable<typeof waited>;
    if (!result.done) throw new Error(result.reason);
    const used = process.cpuUsage(cpu);
    // The outbox stamps each settle with the wall clock, to the millisecond.
    const last = store.sqlite
      .prepare("SELECT max(updated_at) FROM scenario_requests WHERE batch_id = ?")
      .pluck()
      .get(batchId) as string;
    return {
      counts: result.counts,
      lastSettledMs: Date.parse(last),
      cpuMs: (used.user + used.system) / 1000,
    };
  } finally {
    await queue.close();
    await clients.close();
    await store.close();
  }
}

interface RoundResult {
  ratio: number;
  ok: boolean;
}

/** Both sides warmed up, so that both are measured at their steady state: the simulator gets
 * about twice as fast over its first thousands of requests, and so does the push. */
async function warmUp(env: Env, target: RawTarget, concurrency: number): Promise<void> {
  await rawCreateLoop(target, { requests: WARM_ROWS, concurrency, tag: `warm${concurrency}` });
  const seed = seedFile(env, `warm${concurrency}.ndjson`, WARM_ROWS, `warmpush${concurrency}`);
  await pushAll(env, configFor(env, `warm${concurrency}`, null, concurrency), seed);
}

/** One no-limit push of ROWS rows at `concurrency`, between two halves of the raw loop. */
async function noLimitRound(
  env: Env,
  target: RawTarget,
  concurrency: number,
  round: number,
): Promise<RoundResult> {
  const tag = `nl${concurrency}r${round}`;
  // Raw capacity before and after the push, added up: the two see the same machine.
  const before = await rawCreateLoop(target, { requests: ROWS / 2, concurrency, tag: `raw${tag}a` });
  const seedPath = seedFile(env, `${tag}.ndjson`, ROWS, tag);
  const cfg = configFor(env, tag, null, concurrency);
  const { counts, lastSettledMs, cpuMs } = await pushAll(env, cfg, seedPath);
  const after = await rawCreateLoop(target, { requests: ROWS / 2, concurrency, tag: `raw${tag}b` });
  const raw = { ok: before.ok + after.ok, ms: before.ms + after.ms };
  const rawRate = raw.ok / (raw.ms / 1000);
  const seen = await simScenarios(env.sim.baseUrl, tag);
  const firstMs = Math.min(...seen.map((s) => s.created_at_ms));
  const ms = lastSettledMs - firstMs;
  const rate = counts.created / (ms / 1000);
  const ratio = rate / rawRate;
  const rateOf = (r: { ok: number; ms: number }) => fmt(r.ok / (r.ms / 1000));

  console.log(`    round ${round}`);
  console.log(
    `      push             ${fmt(counts.created)} created (exists ${counts.exists}, failed ${counts.failed}) in ${fmt(ms)} ms = ${fmt(rate)} creations/s; ${fmt((cpuMs * 1000) / counts.created)} µs CPU per creation (this process)`,
  );
  console.log(
    `      raw undici loop  ${fmt(raw.ok)} of ${fmt(ROWS)} POSTs ok in ${fmt(raw.ms)} ms = ${fmt(rawRate)} req/s (half before the push, half after: ${rateOf(before)} and ${rateOf(after)} req/s)`,
  );
  console.log(`      push / raw       = ${fmt(ratio * 100, 1)}%`);
  return { ratio, ok: counts.created === ROWS };
}

interface LevelResult {
  concurrency: number;
  /** Median over the rounds. */
  ratio: number;
  ok: boolean;
}

async function noLimitLevel(env: Env, concurrency: number): Promise<LevelResult> {
  const target: RawTarget = {
    baseUrl: env.sim.baseUrl,
    token: env.company.staticToken,
    companyId: env.company.id,
    projectIds: env.company.projectIds,
  };
  console.log(`  push.concurrency ${concurrency}`);
  await warmUp(env, target, concurrency);
  const rounds: RoundResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (env.signal.aborted) throw new Error("interrupted");
    rounds.push(await noLimitRound(env, target, concurrency, round));
  }
  const ratios = rounds.map((r) => r.ratio).sort((a, b) => a - b);
  const ratio = ratios[Math.floor((ratios.length - 1) / 2)] as number;
  console.log(
    `    push / raw, median of ${rounds.length} = ${fmt(ratio * 100, 1)}%  (rounds: ${rounds.map((r) => `${fmt(r.ratio * 100, 1)}%`).join(", ")})`,
  );
  return { concurrency, ratio, ok: rounds.every((r) => r.ok) };
}

async function noLimitPhase(env: Env): Promise<boolean> {
  console.log("");
  console.log(`no rate limit (push.ratePerSecond null), ${fmt(ROWS)} rows per push`);
  const results: LevelResult[] = [];
  for (const concurrency of NOLIMIT_LEVELS) {
    if (env.signal.aborted) throw new Error("interrupted");
    results.push(await noLimitLevel(env, concurrency));
  }
  const judged = results[results.length - 1] as LevelResult;
  const ok = judged.ratio >= 0.3 && results.every((r) => r.ok);
  console.log(
    `  push / raw at push.concurrency ${judged.concurrency} (median) = ${fmt(judged.ratio * 100, 1)}%  (target >= 30%)  ${verdict(ok)}`,
  );
  return ok;
}

async function ratePhase(env: Env): Promise<boolean> {
  const seedPath = seedFile(env, "rate.ndjson", RATE_ROWS, "rate");
  const cfg = configFor(env, "rate", RATE);
  const { counts } = await pushAll(env, cfg, seedPath);
  const seen = await simScenarios(env.sim.baseUrl, "rate");
  const s = perSecond(seen.map((x) => x.created_at_ms));
  const ok = s.max <= RATE && s.average >= RATE * 0.95 && counts.created === RATE_ROWS;

  console.log("");
  console.log(`ratePerSecond ${RATE} (push.concurrency ${CONCURRENCY}), ${fmt(RATE_ROWS)} rows`);
  console.log(
    `  created ${fmt(counts.created)} (exists ${counts.exists}, failed ${counts.failed}); the simulator saw ${fmt(seen.length)}`,
  );
  console.log(`  per calendar second (simulator clock): ${s.counts.join(" ")}`);
  console.log(
    `  max ${s.max}/s (limit ${RATE}); average over ${s.fullSeconds} full seconds ${fmt(s.average, 1)}/s = ${fmt((s.average / RATE) * 100, 1)}% of the limit`,
  );
  console.log(`  max <= ${RATE} and average >= ${RATE * 0.95}  ${verdict(ok)}`);
  return ok;
}

/** Phase 3, in ./push-enqueue.ts; its raw addBulk runs get prefixes of their own. */
function enqueue(env: Env): Promise<boolean> {
  return enqueuePhase({
    cfg: configFor(env, "enqueue", 10),
    seedPath: seedFile(env, "enqueue.ndjson", ENQUEUE_ROWS, "enq"),
    rows: ENQUEUE_ROWS,
    redisUrl: REDIS_URL,
    rawPrefix: `${env.prefix}-enqraw`,
    logger: env.logger,
  });
}

/** Each phase prints its own lines and verdict; the report counts them, by the names BENCH_ONLY takes. */
async function phases(env: Env, report: Report): Promise<void> {
  const all = [
    ["nolimit", noLimitPhase],
    ["rate", ratePhase],
    ["enqueue", enqueue],
  ] as const;
  for (const [name, phase] of all) {
    if (!ONLY.has(name)) continue;
    if (env.signal.aborted) throw new Error("interrupted");
    report.tally(name, await phase(env));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-push-"));
  const prefix = `tas-bench-${randomUUID()}`;
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const sim = await spawnSimulator(["--companies", "1", "--plans", "0", "--reports", "0"]);
  try {
    const company = sim.companies[0];
    if (!company) throw new Error("simulator reported no company");
    const logger = createLogger({ level: "warn", pretty: false });
    const env: Env = { sim, company, dir, prefix, logger, signal: stop.signal };
    console.log(
      `bench:push — company ${company.id}, projects ${company.projectIds.join(", ")} (simulator in a child process), Redis ${REDIS_URL}`,
    );
    const report = new Report("bench:push");
    await phases(env, report);
    const rss = peakRssMb();
    console.log("");
    console.log(`peak RSS of the bench process: ${fmt(rss)} MB`);
    // A missed target fails the command, not only the line.
    if (report.end() !== 0) process.exitCode = 1;
  } finally {
    await sim.stop();
    const deleted = await deleteKeys(REDIS_URL, prefix);
    console.log(`cleanup: deleted ${fmt(deleted)} Redis key(s) under ${prefix}*, removed ${dir}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench:push failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
