/**
 * `npm run chaos`: the chaos experiments, with real processes (the built CLI, the simulator as
 * a child process), real Redis and real databases, on SQLite and, when PG_URL answers, on
 * PostgreSQL. Not part of `npm test`: it takes minutes. One figure line per experiment and
 * store on stdout, then a verdict line; exit 0 when every experiment passed, 1 otherwise.
 *
 *   node dist/chaos/main.js [--only NAME[,NAME]] [--store sqlite|postgres] [--quick] [--seed N]
 *                           [--plans N] [--sync-kills N] [--push-rows N] [--push-kills N]
 *                           [--fault-plans N] [--fault-rows N] [--writer-rounds N] [--redis-rows N]
 */
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { type Experiment, FULL, makeCtx, type Outcome, QUICK, type Sizes } from "./context.js";
import { faults } from "./experiments/faults.js";
import { pushKill } from "./experiments/push-kill.js";
import { redisRestart } from "./experiments/redis-restart.js";
import { syncKill } from "./experiments/sync-kill.js";
import { twoWriters } from "./experiments/two-writers.js";
import { Databases, postgresProblem, REDIS_URL, type StoreName } from "./support/db.js";
import { killAll, Random } from "./support/proc.js";

const EXPERIMENTS: Experiment[] = [syncKill, pushKill, faults, twoWriters, redisRestart];

const SIZE_FLAGS: Record<string, keyof Sizes> = {
  plans: "plans",
  "sync-kills": "syncKills",
  "push-rows": "pushRows",
  "push-kills": "pushKills",
  "fault-plans": "faultPlans",
  "fault-rows": "faultRows",
  "writer-rounds": "writerRounds",
  "redis-rows": "redisRows",
};

const USAGE = `Usage: npm run chaos -- [options]

  --only NAME[,NAME]        run only these experiments (${EXPERIMENTS.map((e) => e.name).join(", ")})
  --store sqlite|postgres   run on one store only (default: both; PostgreSQL when PG_URL answers)
  --quick                   small sizes, for a quick try (about a fifth of the full run)
  --seed N                  seed of the random moments and choices (default: from the clock)
  ${Object.keys(SIZE_FLAGS)
    .map((f) => `--${f} N`)
    .join(", ")}
                            override one size (full run: ${Object.entries(FULL)
                              .map(([k, v]) => `${k} ${v}`)
                              .join(", ")})
`;

function fail(message: string): never {
  process.stderr.write(`chaos: ${message}\n${USAGE}`);
  process.exit(2);
}

async function deletePrefixes(prefixes: string[]): Promise<void> {
  if (prefixes.length === 0) return;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on("error", () => {});
  try {
    await redis.connect();
    for (const prefix of prefixes.splice(0)) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
    }
  } catch {
    // Redis gone: nothing to delete that we could reach.
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<number> {
  const sizeOptions = Object.fromEntries(
    Object.keys(SIZE_FLAGS).map((f) => [f, { type: "string" as const }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      options: {
        only: { type: "string" },
        store: { type: "string" },
        quick: { type: "boolean" },
        seed: { type: "string" },
        help: { type: "boolean", short: "h" },
        ...sizeOptions,
      },
      allowPositionals: false,
    });
  } catch (err) {
    fail((err as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  if (v.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const sizes: Sizes = { ...(v.quick ? QUICK : FULL) };
  for (const [flag, key] of Object.entries(SIZE_FLAGS)) {
    const value = v[flag];
    if (typeof value !== "string") continue;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n <= 0) fail(`--${flag} needs a positive integer, got ${value}`);
    sizes[key] = n;
  }
  const only = typeof v.only === "string" ? v.only.split(",").map((s) => s.trim()) : null;
  for (const name of only ?? [])
    if (!EXPERIMENTS.some((e) => e.name === name)) fail(`unknown experiment ${name}`);
  const experiments = EXPERIMENTS.filter((e) => only === null || only.includes(e.name));
  if (v.store !== undefined && v.store !== "sqlite" && v.store !== "postgres")
    fail(`--store must be sqlite or postgres, got ${String(v.store)}`);
  const seed = typeof v.seed === "string" ? Number(v.seed) : Date.now() % 1_000_000;
  if (!Number.isSafeInteger(seed)) fail(`--seed needs an integer, got ${String(v.seed)}`);

  const stores: StoreName[] = [];
  if (v.store !== "postgres") stores.push("sqlite");
  const skipped: string[] = [];
  if (v.store !== "sqlite") {
    const problem = await postgresProblem();
    if (problem === null) stores.push("postgres");
    else skipped.push(`chaos: PostgreSQL runs skipped: ${problem}`);
  }
  const started = Date.now();
  const line = (s: string) => process.stdout.write(`${s}\n`);
  line(`chaos: seed ${seed}; stores ${stores.join(", ") || "none"}; sizes ${JSON.stringify(sizes)}`);
  for (const s of skipped) line(s);

  const results: { name: string; store: StoreName; outcome: Outcome }[] = [];
  const rnd = new Random(seed);
  let current: { dbs: Databases; prefixes: string[] } | null = null;
  // Stopped (Ctrl+C): no process, database or key of ours is left behind.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      process.stderr.write(`chaos: ${signal} received: stopping, cleaning up\n`);
      killAll();
      const c = current;
      const cleanup = c ? Promise.all([deletePrefixes(c.prefixes), c.dbs.cleanup()]) : Promise.resolve();
      cleanup.finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
    });
  for (const store of stores) {
    for (const experiment of experiments) {
      const dbs = new Databases(store);
      const prefixes: string[] = [];
      current = { dbs, prefixes };
      const t0 = Date.now();
      const note = (msg: string) =>
        process.stderr.write(
          `  [${experiment.name} ${store} +${((Date.now() - t0) / 1000).toFixed(0)}s] ${msg}\n`,
        );
      let outcome: Outcome;
      try {
        outcome = await experiment.run(makeCtx(store, dbs, sizes, rnd, prefixes, note));
      } catch (err) {
        outcome = {
          ok: false,
          figure: `${experiment.name}: ERROR`,
          problems: [(err as Error).stack ?? String(err)],
        };
      } finally {
        await deletePrefixes(prefixes);
        await dbs.cleanup();
      }
      const secs = ((Date.now() - t0) / 1000).toFixed(0);
      line(`${outcome.ok ? "PASS" : "FAIL"} [${store}] ${outcome.figure} (${secs} s)`);
      for (const p of outcome.problems) line(`  ! ${p}`);
      results.push({ name: experiment.name, store, outcome });
    }
  }
  const failed = results.filter((r) => !r.outcome.ok);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  if (results.length === 0) {
    line("chaos: FAILED: nothing ran");
    return 1;
  }
  if (failed.length === 0) {
    line(`chaos: ${results.length} of ${results.length} experiments passed (${minutes} min)`);
    return 0;
  }
  line(
    `chaos: FAILED: ${failed.length} of ${results.length} experiments failed (${failed
      .map((f) => `${f.name} on ${f.store}`)
      .join(", ")}) (${minutes} min)`,
  );
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`chaos: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
