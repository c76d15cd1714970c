/**
 * `tas-sync push FILE --wait` of rows in parent/child chains, the worker process killed with
 * kill -9 at random moments and started again each time. Then the documented recovery: push
 * --wait until settled, and set-parent-id (the id looked up in the simulator) for children
 * blocked behind a parent that ended `exists` without an id. Every row must be on the service
 * exactly once, under the right parent, and the outbox must say what the service holds.
 */
import { type Ctx, type Experiment, type Outcome, simConfig } from "../context.js";
import type { Db } from "../support/db.js";
import { sleep, startCli, startSimulator } from "../support/proc.js";
import { agreement, chainRows, settle, writeSeed } from "../support/push.js";

const RATE = 250;

export const pushKill: Experiment = {
  name: "push-kill",
  summary: "push --wait of parent/child chains killed with kill -9 and restarted",
  async run(ctx: Ctx): Promise<Outcome> {
    const { pushRows, pushKills } = ctx.sizes;
    const problems: string[] = [];
    // Latency keeps creates in flight, so kills land between send and answer.
    const sim = await startSimulator([
      "--companies",
      "1",
      "--plans",
      "1",
      "--reports",
      "0",
      "--latency-ms",
      "20",
    ]);
    try {
      const company = sim.companies[0];
      if (!company) throw new Error("no company");
      const db = await ctx.dbs.fresh();
      const config = ctx.writeConfig(
        "push.json",
        simConfig(sim, db.database, {
          queuePrefix: ctx.prefix(),
          logLevel: "warn",
          http: { timeoutMs: 10_000, maxAttempts: 3, maxRequestsPerSecond: 2000 },
          push: { ratePerSecond: RATE, concurrency: 8, maxAttempts: 10, lockDurationMs: 2000 },
        }),
      );
      const rows = chainRows("pk", Math.ceil(pushRows / 5), company.id, company.projectIds);
      const seed = writeSeed(ctx.path("chains.ndjson"), rows);
      let kills = 0;
      let inFlight = 0;
      const t0 = Date.now();
      const share = ((rows.length / RATE) * 1000) / (pushKills + 1);
      for (let i = 0; i < pushKills; i++) {
        const run = startCli(["push", seed, "--wait", "--config", config]);
        // Spread over the push: each run lives 0.7 s (to start) plus up to twice its share.
        await sleep(700 + ctx.rnd.next() * 2 * share);
        if (run.exited()) {
          await run.done;
          break;
        }
        run.kill("SIGKILL");
        await run.done;
        kills++;
        inFlight += await inFlightNow(db);
      }
      const createdAtKills = (await sim.scenarios()).length;
      ctx.note(`${kills} kills, ${inFlight} creates in flight at them, ${createdAtKills} created so far`);
      if (kills < pushKills) problems.push(`the push ended before kill ${kills + 1} of ${pushKills}`);
      const settled = await settle(sim, db, config, seed, { waitMs: 240_000 });
      problems.push(...settled.problems);
      const a = await agreement(sim, db, rows);
      problems.push(...a.problems);
      const secs = ((Date.now() - t0) / 1000).toFixed(0);
      const figure =
        `push kill -9: ${kills} kills (${inFlight} creates in flight at them), ${a.rows.toLocaleString("en-US")} rows in ` +
        `${rows.length / 5} chains 4 deep, ${a.duplicates} duplicates, ${a.missing} missing, ` +
        `${a.created} created + ${a.exists} exists, ${settled.recovered} recovered by set-parent-id, ` +
        `outbox ${a.mismatches === 0 && a.duplicates === 0 && a.missing === 0 ? "=" : "!="} service` +
        `${a.mismatches ? ` (${a.mismatches} mismatches)` : ""}, settled in ${secs} s with ${settled.pushRuns} more push --wait run(s)` +
        `${settled.hangs ? `, ${settled.hangs} HUNG` : ""}`;
      return { ok: problems.length === 0, figure, problems };
    } finally {
      await sim.stop();
    }
  },
};

/**
 * Creates in flight at a kill: none when the push was killed before it had made its database
 * (a slow start on a loaded machine: a CI run beside it made one in under 0.7 s fail here).
 */
async function inFlightNow(db: Db): Promise<number> {
  try {
    return await db.scalar("SELECT count(*) FROM scenario_requests WHERE in_flight");
  } catch (err) {
    if (/does not exist|no such table|unable to open/i.test(String((err as Error)?.message ?? err))) return 0;
    throw err;
  }
}
