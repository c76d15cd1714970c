/**
 * A faulty service: 20% of /api requests answered 500, 5% of creates stored and then cut
 * halfway through the answer, 2% of requests answered only after tas-sync's timeout, 429s
 * that come in bursts, and access tokens that live 3 s (password grant). Two simulators with
 * the same seed serve the same data, one without faults: the sync through the faulty one must
 * write exactly what the fault-free one writes, and a push through it must settle every row,
 * each scenario once.
 */
import { type Ctx, type Experiment, type Outcome, simConfig } from "../context.js";
import { diffDumps, dump, REDIS_URL } from "../support/db.js";
import { cli, startSimulator } from "../support/proc.js";
import { agreement, chainRows, settle, writeSeed } from "../support/push.js";

const TIMEOUT_MS = 1500;
/** 429s that start a burst, as a share of the syncs' requests (the push gets 2%). */
const SYNC_RATE_LIMIT_RATE = 0.1;
const FAULTS = [
  "--error-rate",
  "0.2",
  "--drop-half-rate",
  "0.05",
  "--slow-rate",
  "0.02",
  "--slow-ms",
  String(TIMEOUT_MS * 2),
  "--rate-limit-rate",
  "0.02",
  "--rate-limit-burst",
  "5",
  "--retry-after",
  "1",
  "--token-ttl",
  "3",
];

export const faults: Experiment = {
  name: "faults",
  summary: "sync and push through a faulty service (5xx, cut answers, timeouts, 429 bursts, 3 s tokens)",
  async run(ctx: Ctx): Promise<Outcome> {
    const { faultPlans, faultRows } = ctx.sizes;
    const problems: string[] = [];
    const data = ["--companies", "2", "--plans", String(faultPlans), "--reports", "10", "--seed", "11"];
    const clean = await startSimulator(data);
    const faulty = await startSimulator([...data, ...FAULTS]);
    try {
      const cleanDb = await ctx.dbs.fresh();
      const faultyDb = await ctx.dbs.fresh();
      const cleanCfg = ctx.writeConfig("clean.json", simConfig(clean, cleanDb.database));
      // The faulty one logs in with the password grant (the config the simulator prints).
      const faultyCfg = ctx.writeConfig("faulty.json", {
        ...faulty.config,
        database: faultyDb.database,
        redisUrl: REDIS_URL,
        queuePrefix: ctx.prefix(),
        logLevel: "error",
        http: { timeoutMs: TIMEOUT_MS, maxAttempts: 10, maxRequestsPerSecond: 2000, connections: 16 },
        push: { ratePerSecond: 100, concurrency: 8, maxAttempts: 20, lockDurationMs: 5000 },
      });
      // The syncs make under a hundred requests: at the push's 2% of 429s, a run could see none.
      await faulty.setFaults({ rateLimitRate: SYNC_RATE_LIMIT_RATE });
      const t0 = Date.now();
      // Three rounds: the same edits on both services, then a sync through each.
      const statuses: string[] = [];
      let diff: string[] = [];
      let cleanRows = 0;
      for (let round = 0; round < 3 && diff.length === 0; round++) {
        if (round > 0) {
          for (const c of clean.companies) {
            const { planIds } = await clean.adminJson<{ planIds: number[] }>(
              "GET",
              `companies/${c.id}/plans`,
            );
            for (const id of ctx.rnd.sample(planIds, Math.ceil(planIds.length / 20))) {
              const plan = await clean.adminJson<Record<string, unknown>>(
                "GET",
                `companies/${c.id}/plans/${id}`,
              );
              const edited = { ...plan, plan_name: `${String(plan.plan_name)} r${round}` };
              await clean.adminJson("PUT", `companies/${c.id}/plans/${id}`, edited);
              await faulty.adminJson("PUT", `companies/${c.id}/plans/${id}`, edited);
            }
          }
        }
        const a = await cli(["sync", "--config", cleanCfg]);
        const b = await cli(["sync", "--config", faultyCfg]);
        if (a.code !== 0) problems.push(`fault-free sync exited ${a.code}: ${a.stdout}`);
        const st = b.stdout.match(/^company \d+: \w+/gm) ?? [];
        statuses.push(...st);
        if (b.code !== 0 || st.length !== 2 || !st.every((s) => s.endsWith("succeeded")))
          problems.push(`faulty sync exited ${b.code}: ${b.stdout.trim()} ${b.stderr.slice(-300)}`);
        const cleanDump = await dump(cleanDb);
        cleanRows = cleanDump.rows;
        diff = diffDumps(await dump(faultyDb), cleanDump);
        if (diff.length)
          problems.push(
            `sync ${round + 1} through faults differs from the fault-free one:\n  ${diff.join("\n  ")}`,
          );
      }
      const syncSecs = ((Date.now() - t0) / 1000).toFixed(0);
      const syncStats = await faulty.stats();
      await faulty.setFaults({ rateLimitRate: 0.02 });
      ctx.note(`syncs: ${statuses.join(", ")}; pushing ${faultRows} rows`);

      const company = faulty.companies[0];
      if (!company) throw new Error("no company");
      const rows = chainRows("ft", Math.ceil(faultRows / 5), company.id, company.projectIds);
      const seed = writeSeed(ctx.path("faults.ndjson"), rows);
      const t1 = Date.now();
      const settled = await settle(faulty, faultyDb, faultyCfg, seed, { waitMs: 300_000 });
      const pushSecs = ((Date.now() - t1) / 1000).toFixed(0);
      problems.push(...settled.problems);
      const agree = await agreement(faulty, faultyDb, rows);
      problems.push(...agree.problems);
      const stats = await faulty.stats();
      type Stats = typeof stats;
      const sum = (st: Stats, status: string, route: (r: string) => boolean = (r) => r.includes("/api/")) =>
        Object.entries(st.routes)
          .filter(([r]) => route(r))
          .reduce(
            (n, [, by]) =>
              n + (status === "*" ? Object.values(by).reduce((x, y) => x + y, 0) : (by[status] ?? 0)),
            0,
          );
      const isCreate = (r: string) => r.startsWith("POST /api/");
      const isToken = (r: string) => r.includes("oauth");
      const sync = (status: string) => sum(syncStats, status);
      const push = (status: string) => sum(stats, status, isCreate);
      const attempts = await faultyDb.scalar("SELECT sum(attempts) FROM scenario_requests");
      if (sync("429") === 0)
        problems.push("no 429 reached the syncs: the experiment did not try 429 bursts on them");
      const figure =
        `faults (20% 500, 5% creates cut halfway, 2% slower than the ${TIMEOUT_MS} ms timeout, 429 bursts of 6, 3 s tokens): ` +
        `3 syncs of 2 × ${faultPlans.toLocaleString("en-US")} plans + 20 reports ${diff.length ? "DIFFER from" : "equal to"} the fault-free ones ` +
        `(${cleanRows.toLocaleString("en-US")} rows; ${sync("*")} requests: ${sync("500")} × 500, ${sync("429")} × 429 (bursts started by ${SYNC_RATE_LIMIT_RATE * 100}% of requests), ` +
        `${sync("dropped")} timed out; ${syncSecs} s); ` +
        `push of ${rows.length} rows: ${agree.created} created + ${agree.exists} exists, ${agree.failed} failed, ` +
        `${agree.duplicates} duplicates, ${agree.missing} missing, ${settled.recovered} recovered by set-parent-id ` +
        `(${attempts} attempts: ${push("500")} × 500, ${push("429")} × 429, ${push("dropped")} cut or timed out; ${pushSecs} s); ` +
        `${sum(stats, "200", isToken)} tokens issued` +
        `${settled.hangs ? `; ${settled.hangs} push --wait HUNG` : ""}`;
      return { ok: problems.length === 0, figure, problems };
    } finally {
      await clean.stop();
      await faulty.stop();
    }
  },
};
