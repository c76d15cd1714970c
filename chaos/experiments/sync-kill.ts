/**
 * `tas-sync sync` of a big company killed with kill -9 at random moments, most of them just
 * after the sync logs "plan list received; applying" (the write transaction begins), the rest
 * anywhere. The service flips between two states A and B (changed, deleted and new plans, a
 * changed report) so that every killed run had real work to write.
 *
 * After each kill: the integrity checks pass, and the company is whole: its tables equal
 * either the dump from before the run (nothing written) or the dump of a reference database
 * that made the same sync without interruption. The reference follows only the runs that
 * committed, so at the end one clean sync must leave both databases equal, history included
 * (timestamps and run ids aside).
 */
import { type Ctx, type Experiment, type Outcome, simConfig } from "../context.js";
import { type Db, diffDumps, dump, integrityProblems } from "../support/db.js";
import { cli, parallel, type Simulator, sleep, startCli, startSimulator, until } from "../support/proc.js";

type State = "A" | "B";

const APPLYING = "plan list received; applying";

interface Flip {
  set(state: State): Promise<void>;
}

/** Prepares the two states of the service; it is in A until told otherwise. */
async function flipper(
  sim: Simulator,
  companyId: number,
  reportId: number | undefined,
  ctx: Ctx,
): Promise<Flip> {
  const { planIds } = await sim.adminJson<{ planIds: number[] }>("GET", `companies/${companyId}/plans`);
  const changed = ctx.rnd.sample(planIds, Math.round(planIds.length * 0.1));
  const rest = planIds.filter((id) => !changed.includes(id));
  const deleted = ctx.rnd.sample(rest, Math.max(1, Math.round(planIds.length * 0.0125)));
  const maxId = Math.max(...planIds);
  const added = Array.from({ length: deleted.length }, (_, i) => maxId + 1 + i);
  const original = new Map<number, Record<string, unknown>>();
  await parallel([...changed, ...deleted], 16, async (id) => {
    original.set(id, await sim.adminJson("GET", `companies/${companyId}/plans/${id}`));
  });
  const template = original.get(changed[0] as number) as Record<string, unknown>;
  const report =
    reportId === undefined
      ? null
      : await sim.adminJson<Record<string, unknown>>("GET", `reports/${reportId}`);
  const put = (id: number, body: unknown) => sim.adminJson("PUT", `companies/${companyId}/plans/${id}`, body);
  const del = (id: number) => sim.adminJson("DELETE", `companies/${companyId}/plans/${id}`);
  return {
    async set(state) {
      const ops: (() => Promise<unknown>)[] = [];
      for (const id of changed) {
        const p = original.get(id) as Record<string, unknown>;
        ops.push(() =>
          put(id, state === "A" ? p : { ...p, plan_name: `${String(p.plan_name)} (B)`, description: "B" }),
        );
      }
      for (const id of deleted) ops.push(() => (state === "A" ? put(id, original.get(id)) : del(id)));
      for (const id of added)
        ops.push(() => (state === "B" ? put(id, { ...template, id, plan_name: `new plan ${id}` }) : del(id)));
      await parallel(ops, 16, async (op) => {
        await op();
      });
      if (report && reportId !== undefined)
        await sim.adminJson(
          "PUT",
          `reports/${reportId}`,
          state === "A" ? report : { ...report, report_name: `${String(report.report_name)} (B)` },
        );
    },
  };
}

/**
 * On PostgreSQL, waits until no other session is busy on the database: the killed client's
 * session ends its transaction (rollback, or a commit already sent) once it sees the socket gone.
 */
async function quiet(db: Db): Promise<void> {
  if (db.store !== "postgres") return;
  await until(async () => {
    const n = await db.scalar(
      `SELECT count(*) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'`,
    );
    return n === 0 ? true : undefined;
  }, 15_000);
}

export const syncKill: Experiment = {
  name: "sync-kill",
  summary: "sync of a big company killed with kill -9, weighted toward the write transaction",
  async run(ctx: Ctx): Promise<Outcome> {
    const { plans, syncKills } = ctx.sizes;
    const problems: string[] = [];
    const sim = await startSimulator([
      "--companies",
      "1",
      "--plans",
      String(plans),
      "--reports",
      "2",
      "--seed",
      "7",
    ]);
    try {
      const company = sim.companies[0];
      if (!company) throw new Error("no company");
      const flip = await flipper(sim, company.id, company.reportIds[0], ctx);
      const chaos = await ctx.dbs.fresh();
      const reference = await ctx.dbs.fresh();
      const over = { sync: { lease: "10s" } };
      const cfg = (name: string, db: Db) => ctx.writeConfig(name, simConfig(sim, db.database, over));
      const chaosCfg = cfg("chaos.json", chaos);
      const refCfg = cfg("reference.json", reference);
      const sync = async (config: string, what: string) => {
        const started = Date.now();
        const res = await cli(["sync", "--log-level", "debug", "--config", config]);
        if (res.code !== 0 || !/: succeeded/.test(res.stdout))
          throw new Error(`${what}: sync exited ${res.code}: ${res.stdout}${res.stderr.slice(-500)}`);
        const applying = res.logs.find((l) => l.msg === APPLYING)?.time;
        const finished = res.logs.find((l) => l.msg === "sync finished")?.time;
        return {
          totalMs: Date.now() - started,
          applyMs: applying !== undefined && finished !== undefined ? finished - applying : 0,
        };
      };
      ctx.note(`initial syncs of ${plans} plans`);
      await sync(chaosCfg, "initial sync");
      await sync(refCfg, "reference sync");
      // How long a run and its apply take when the service flips (the kill window), measured
      // on both databases, which stay in step.
      await flip.set("B");
      const cal = await sync(chaosCfg, "calibration sync after a flip");
      await sync(refCfg, "reference sync after a flip");
      ctx.note(`calibration: a sync of the flip takes ${cal.totalMs} ms, its apply ${cal.applyMs} ms`);
      let simState: State = "B";
      let chaosState: State = "B";
      let current: Awaited<ReturnType<typeof dump>> | null = null;
      const counts = {
        kills: 0,
        apply: 0,
        fetch: 0,
        after: 0,
        finishedFirst: 0,
        integrityOk: 0,
        half: 0,
        rolledBack: 0,
        committed: 0,
      };
      for (let attempt = 0; counts.kills < syncKills && attempt < syncKills * 3; attempt++) {
        const target: State = chaosState === "A" ? "B" : "A";
        if (simState !== target) {
          await flip.set(target);
          simState = target;
        }
        const before = current ?? (await dump(chaos));
        const towardApply = ctx.rnd.next() < 0.7;
        const roundStart = Date.now();
        const run = startCli(["sync", "--log-level", "debug", "--config", chaosCfg]);
        if (towardApply) {
          const line = await run.waitForLog((l) => l.msg === APPLYING);
          if (line) await sleep(ctx.rnd.next() * Math.max(20, cal.applyMs * 1.3));
        } else {
          await sleep(ctx.rnd.next() * cal.totalMs);
        }
        if (run.exited()) {
          counts.finishedFirst++;
        } else {
          const applying = run.logs.some((l) => l.msg === APPLYING);
          const finished = run.logs.some((l) => l.msg === "sync finished");
          run.kill("SIGKILL");
          counts.kills++;
          if (!applying) counts.fetch++;
          else if (!finished) counts.apply++;
          else counts.after++;
        }
        const res = await run.done;
        const killedAt = Date.now() - roundStart;
        await quiet(chaos);
        const integrity = await integrityProblems(chaos);
        if (integrity.length === 0) counts.integrityOk++;
        else problems.push(`after kill ${counts.kills}: ${integrity.join("; ")}`);
        const after = await dump(chaos);
        current = after;
        const verdict = after.digest === before.digest ? "nothing written" : "written";
        ctx.note(
          `run ${attempt + 1}: ${towardApply ? "after 'applying'" : "at random"}, ${res.signal === "SIGKILL" ? `killed at ${killedAt} ms` : "finished first"}: ${verdict} (${Date.now() - roundStart} ms with checks)`,
        );
        if (after.digest === before.digest) {
          if (res.signal === "SIGKILL") counts.rolledBack++;
          if (res.signal !== "SIGKILL")
            problems.push(`a sync that was not killed wrote nothing: ${res.stdout}`);
          continue;
        }
        // Written: it must be exactly what a sync never interrupted writes.
        await sync(refCfg, "reference sync");
        const expected = await dump(reference);
        const diff = diffDumps(after, expected);
        if (diff.length === 0) {
          if (res.signal === "SIGKILL") counts.committed++;
          chaosState = target;
        } else {
          counts.half++;
          problems.push(`half-written company after kill ${counts.kills}:\n  ${diff.join("\n  ")}`);
          break;
        }
      }
      if (counts.kills < syncKills)
        problems.push(`only ${counts.kills} of ${syncKills} runs could be killed`);
      // One clean sync, with changes to write, on both.
      const last: State = chaosState === "A" ? "B" : "A";
      if (simState !== last) await flip.set(last);
      await sync(chaosCfg, "clean sync after the kills");
      await sync(refCfg, "reference sync");
      const finalChaos = await dump(chaos);
      const finalRef = await dump(reference);
      const diff = diffDumps(finalChaos, finalRef);
      if (diff.length)
        problems.push(`final dump differs from the uninterrupted one:\n  ${diff.join("\n  ")}`);
      const finalIntegrity = await integrityProblems(chaos);
      if (finalIntegrity.length) problems.push(`final integrity: ${finalIntegrity.join("; ")}`);
      const running = await chaos.scalar("SELECT count(*) FROM sync_runs WHERE status = 'running'");
      if (running > 0) problems.push(`${running} run(s) of killed processes still 'running'`);
      const reaped = await chaos.scalar(
        "SELECT count(*) FROM sync_runs WHERE status = 'failed' AND error LIKE 'abandoned%'",
      );
      const figure =
        `sync kill -9: ${counts.kills} kills of a ${plans.toLocaleString("en-US")}-plan sync ` +
        `(${counts.apply} during apply, ${counts.fetch} while fetching, ${counts.after} after the commit), ` +
        `${counts.integrityOk}/${counts.kills + counts.finishedFirst} integrity ok, ${counts.half} half-written ` +
        `(${counts.rolledBack} rolled back, ${counts.committed} committed whole), ${reaped} dead runs reaped, ` +
        `final dump ${diff.length ? "DIFFERENT" : "equal"} (${finalChaos.rows.toLocaleString("en-US")} rows)`;
      return { ok: problems.length === 0, figure, problems };
    } finally {
      await sim.stop();
    }
  },
};
