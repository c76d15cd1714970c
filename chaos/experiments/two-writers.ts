/**
 * Two `tas-sync sync` processes of one company whose runs cross, round after round, with
 * random delays: A's plan list is held by the simulator for a random time (the list taken
 * when the request arrived), the service's data changes meanwhile, and then either A stalls
 * (SIGSTOP) past its lease and B takes the company over, A waking up before or after B is
 * done; or B simply starts at a random moment while A runs. After each round the mirror holds
 * the newest snapshot (B's when B applied), stale runs end `superseded` or `skipped`, and
 * the history is valid (intervals never inverted or overlapping, one open version per live
 * plan). At the end, after one clean sync, the mirror equals the service.
 */
import { type Ctx, type Experiment, type Outcome, simConfig } from "../context.js";
import { integrityProblems } from "../support/db.js";
import { parallel, type Simulator, sleep, startCli, startSimulator, until } from "../support/proc.js";

const statusOf = (stdout: string) => /^company \d+: (\w+)/m.exec(stdout)?.[1] ?? "none";

async function edit(sim: Simulator, companyId: number, ids: number[], suffix: string) {
  await parallel(ids, 8, async (id) => {
    const plan = await sim.adminJson<Record<string, unknown>>("GET", `companies/${companyId}/plans/${id}`);
    const name = String(plan.plan_name).replace(/ \[.*\]$/, "");
    await sim.adminJson("PUT", `companies/${companyId}/plans/${id}`, {
      ...plan,
      plan_name: `${name} [${suffix}]`,
    });
  });
}

export const twoWriters: Experiment = {
  name: "two-writers",
  summary: "two processes syncing one company, with random delays, stalls and edits between runs",
  async run(ctx: Ctx): Promise<Outcome> {
    const rounds = ctx.sizes.writerRounds;
    const problems: string[] = [];
    const sim = await startSimulator([
      "--companies",
      "1",
      "--plans",
      "2000",
      "--reports",
      "0",
      "--seed",
      "5",
    ]);
    try {
      const company = sim.companies[0];
      if (!company) throw new Error("no company");
      const db = await ctx.dbs.fresh();
      const config = ctx.writeConfig(
        "writers.json",
        simConfig(sim, db.database, {
          logLevel: "warn",
          sync: { lease: "2s" },
          http: { timeoutMs: 60_000, maxAttempts: 1, maxRequestsPerSecond: 2000 },
        }),
      );
      const sync = () => startCli(["sync", "--config", config]);
      const first = await sync().done;
      if (first.code !== 0) throw new Error(`first sync exited ${first.code}: ${first.stdout}`);
      const { planIds } = await sim.adminJson<{ planIds: number[] }>("GET", `companies/${company.id}/plans`);
      const marker = planIds[0] as number;
      const nameOf = async (id: number) =>
        String(
          (await db.rows<{ plan_name: string }>("SELECT plan_name FROM plans WHERE id = ?", id))[0]
            ?.plan_name,
        );
      const tally: Record<string, number> = {};
      const count = (k: string) => {
        tally[k] = (tally[k] ?? 0) + 1;
      };
      let newest = 0;
      for (let round = 1; round <= rounds; round++) {
        const aEdits = [marker, ...ctx.rnd.sample(planIds.slice(1), 20)];
        const bEdits = [marker, ...ctx.rnd.sample(planIds.slice(1), 20)];
        await edit(sim, company.id, aEdits, `${round}A`);
        const delay = ctx.rnd.int(1500, 4000);
        await sim.setFaults({ planListDelayOnceMs: delay });
        const a = sync();
        const held = await until(async () => ((await sim.stats()).held > 0 ? true : undefined), 20_000, 20);
        if (!held) problems.push(`round ${round}: A's plan list was never held`);
        await edit(sim, company.id, bEdits, `${round}B`);
        const stall = ctx.rnd.next() < 0.6;
        let b: ReturnType<typeof sync>;
        if (stall) {
          count("stalled");
          a.child.kill("SIGSTOP");
          await sleep(2500 + ctx.rnd.next() * 1000);
          b = sync();
          if (ctx.rnd.next() < 0.5) {
            await b.done;
          } else {
            await sleep(ctx.rnd.next() * 1500);
            count("woke during B");
          }
          a.child.kill("SIGCONT");
        } else {
          count("raced");
          await sleep(ctx.rnd.next() * (delay + 1000));
          b = sync();
        }
        const [ra, rb] = await Promise.all([a.done, b.done]);
        const sa = statusOf(ra.stdout);
        const sb = statusOf(rb.stdout);
        count(`A ${sa}`);
        count(`B ${sb}`);
        if (ra.code !== 0 || rb.code !== 0)
          problems.push(`round ${round}: exit codes A ${ra.code}, B ${rb.code}: ${ra.stdout}${rb.stdout}`);
        const want = sb === "succeeded" ? `${round}B` : sa === "succeeded" ? `${round}A` : null;
        const got = await nameOf(marker);
        if (want === null) problems.push(`round ${round}: neither run applied (A ${sa}, B ${sb})`);
        else if (!got.endsWith(`[${want}]`))
          problems.push(
            `round ${round}: mirror has "${got}", the newest applied snapshot says [${want}] (A ${sa}, B ${sb})`,
          );
        else newest++;
        // A stale snapshot may not be applied over a newer one: superseded, or skipped.
        if (sa === "succeeded" && sb === "succeeded" && !got.endsWith(`[${round}B]`))
          problems.push(`round ${round}: both applied and the older won`);
        const history = await integrityProblems(db);
        if (history.length) problems.push(`round ${round}: ${history.join("; ")}`);
      }
      // One clean sync; the mirror must then be the service, plan for plan.
      const last = await sync().done;
      if (last.code !== 0) problems.push(`clean sync exited ${last.code}: ${last.stdout}`);
      const service = new Map<number, string>();
      const ids = (await sim.adminJson<{ planIds: number[] }>("GET", `companies/${company.id}/plans`))
        .planIds;
      await parallel(ids, 16, async (id) => {
        service.set(id, JSON.stringify(await sim.adminJson("GET", `companies/${company.id}/plans/${id}`)));
      });
      const mirror = await db.rows<{ id: number; raw_json: string }>(
        "SELECT v.id, v.raw_json FROM v_plan_versions v JOIN plans p ON p.id = v.id WHERE v.valid_to IS NULL AND p.deleted_at IS NULL",
      );
      let differ = 0;
      for (const m of mirror)
        if (service.get(Number(m.id)) !== JSON.stringify(JSON.parse(m.raw_json))) differ++;
      if (mirror.length !== service.size || differ > 0)
        problems.push(`final mirror: ${mirror.length} live plans, service ${service.size}, ${differ} differ`);
      const history = await integrityProblems(db);
      if (history.length) problems.push(`final: ${history.join("; ")}`);
      const versions = await db.scalar("SELECT count(*) FROM plan_versions");
      const t = (k: string) => tally[k] ?? 0;
      const figure =
        `two writers: ${rounds} rounds of 2 syncs of one company (${t("stalled")} with A stalled past its lease, ` +
        `${t("woke during B")} of them waking during B; ${t("raced")} racing): A ${t("A superseded")} superseded, ` +
        `${t("A succeeded")} succeeded; B ${t("B succeeded")} succeeded, ${t("B skipped")} skipped; ` +
        `mirror = newest snapshot ${newest}/${rounds}, history ${problems.some((p) => /version|inverted|overlap/.test(p)) ? "INVALID" : "valid"} ` +
        `(${versions.toLocaleString("en-US")} versions), final mirror ${differ === 0 && mirror.length === service.size ? "=" : "!="} service ` +
        `(${service.size.toLocaleString("en-US")} plans)`;
      return { ok: problems.length === 0, figure, problems };
    } finally {
      await sim.stop();
    }
  },
};
