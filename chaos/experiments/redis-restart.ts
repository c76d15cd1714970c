/**
 * A `tas-sync daemon` syncing a company every 2 s and working through a push, on a Redis of
 * its own that is killed (kill -9) mid-run and started again empty after an outage. The
 * schedules and the pushes must resume within 30 s of Redis answering again (the times are
 * measured), and the push must still end with every row on the service exactly once.
 */
import { type Ctx, type Experiment, type Outcome, simConfig } from "../context.js";
import { sleep, startCli, startSimulator, until, whileStoppable } from "../support/proc.js";
import { agreement, type SeedRow, writeSeed } from "../support/push.js";
import { OwnRedis } from "../support/redis-server.js";

const OUTAGE_MS = 5000;
const RESUME_LIMIT_S = 30;

export const redisRestart: Experiment = {
  name: "redis-restart",
  summary: "Redis killed and restarted empty during a daemon run",
  async run(ctx: Ctx): Promise<Outcome> {
    const redis = await OwnRedis.start();
    return whileStoppable(
      () => redis.killNow(),
      () => withRedis(ctx, redis),
    );
  },
};

async function withRedis(ctx: Ctx, redis: OwnRedis): Promise<Outcome> {
  const problems: string[] = [];
  // Latency keeps creates in flight when Redis goes.
  const sim = await startSimulator([
    "--companies",
    "1",
    "--plans",
    "200",
    "--reports",
    "1",
    "--latency-ms",
    "100",
  ]);
  let daemon: ReturnType<typeof startCli> | null = null;
  try {
    const company = sim.companies[0];
    if (!company) throw new Error("no company");
    const db = await ctx.dbs.fresh();
    const config = ctx.writeConfig(
      "daemon.json",
      simConfig(sim, db.database, {
        redisUrl: redis.url,
        queuePrefix: ctx.prefix(),
        logLevel: "info",
        sync: { every: "2s" },
        http: { timeoutMs: 10_000, maxAttempts: 3, maxRequestsPerSecond: 2000 },
        push: { ratePerSecond: 20, concurrency: 4, maxAttempts: 10, lockDurationMs: 5000 },
        shutdownGraceMs: 5000,
      }),
    );
    const rows: SeedRow[] = Array.from({ length: ctx.sizes.redisRows }, (_, i) => ({
      key: `rr-${i}`,
      company_id: company.id,
      project_id: company.projectIds[i % company.projectIds.length] as number,
      scenario_name: `redis restart ${i}`,
      source_file: `rr_${i}.java`,
    }));
    const seed = writeSeed(ctx.path("redis.ndjson"), rows);
    daemon = startCli(["daemon", "--no-server", "--config", config]);
    if (!(await daemon.waitForLog((l) => l.msg === "daemon started")))
      throw new Error(`daemon did not start: ${(await daemon.done).stderr.slice(-1000)}`);
    const pushed = await startCli(["push", seed, "--config", config]).done;
    if (pushed.code !== 0) throw new Error(`push exited ${pushed.code}: ${pushed.stderr}`);
    const runsSucceeded = () => db.scalar("SELECT count(*) FROM sync_runs WHERE status = 'succeeded'");
    const warm = await until(
      async () =>
        (await sim.scenarios()).length >= Math.min(40, rows.length / 4) && (await runsSucceeded()) >= 2
          ? true
          : undefined,
      60_000,
    );
    if (!warm) throw new Error("the daemon did not sync and push before the outage");
    await redis.stop();
    const createdAtKill = (await sim.scenarios()).length;
    const inFlight = await db.scalar("SELECT count(*) FROM scenario_requests WHERE in_flight");
    ctx.note(
      `Redis killed with ${createdAtKill} created and ${inFlight} in flight; back in ${OUTAGE_MS / 1000} s, empty`,
    );
    await sleep(OUTAGE_MS);
    await redis.start();
    const back = Date.now();
    const backIso = new Date(back).toISOString();
    let syncS: number | null = null;
    let pushS: number | null = null;
    await until(async () => {
      const elapsed = (Date.now() - back) / 1000;
      if (
        syncS === null &&
        (await db.scalar("SELECT count(*) FROM sync_runs WHERE started_at > ?", backIso)) > 0
      )
        syncS = elapsed;
      if (pushS === null && (await sim.scenarios()).some((s) => s.created_at_ms > back)) pushS = elapsed;
      return syncS !== null && pushS !== null ? true : undefined;
    }, 60_000);
    const resumedSync = syncS as number | null;
    const resumedPush = pushS as number | null;
    if (resumedSync === null || resumedSync > RESUME_LIMIT_S)
      problems.push(`syncs did not resume within ${RESUME_LIMIT_S} s (${resumedSync ?? "never, in 60"} s)`);
    if (resumedPush === null || resumedPush > RESUME_LIMIT_S)
      problems.push(`pushes did not resume within ${RESUME_LIMIT_S} s (${resumedPush ?? "never, in 60"} s)`);
    const settled = await until(
      async () =>
        (await db.scalar(
          "SELECT count(*) FROM scenario_requests WHERE status NOT IN ('created', 'exists', 'failed')",
        )) === 0
          ? true
          : undefined,
      Math.max(120_000, (rows.length / 20) * 2000),
      250,
    );
    if (!settled) problems.push("the push did not settle after Redis came back");
    const agree = await agreement(sim, db, rows);
    problems.push(...agree.problems);
    const after = await db.scalar(
      "SELECT count(*) FROM sync_runs WHERE status = 'succeeded' AND started_at > ?",
      backIso,
    );
    const f = (s: number | null) => (s === null ? "never" : `${s.toFixed(1)} s`);
    const figure =
      `redis restart (kill -9 mid-run, ${OUTAGE_MS / 1000} s outage, back empty): schedules resumed in ${f(resumedSync)}, ` +
      `pushes in ${f(resumedPush)} (limit ${RESUME_LIMIT_S} s); ${after} syncs succeeded after; ` +
      `push of ${rows.length} rows (${createdAtKill} created and ${inFlight} in flight at the kill): ` +
      `${agree.created} created + ${agree.exists} exists, ${agree.duplicates} duplicates, ${agree.missing} missing`;
    return { ok: problems.length === 0, figure, problems };
  } finally {
    if (daemon && !daemon.exited()) {
      daemon.kill("SIGTERM");
      const timer = setTimeout(() => daemon?.kill("SIGKILL"), 30_000);
      await daemon.done;
      clearTimeout(timer);
    }
    await sim.stop();
    await redis.close();
  }
}
