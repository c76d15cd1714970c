/**
 * The plan list's new or changed elements are read and decided on the main thread while they
 * fit the read-ahead budget, and past it by a worker thread as they arrive (src/sync/plan-list.ts).
 * Both ways must store exactly the same: rows, history, rejections, run records and the observed
 * schema, through a list that holds every kind of trouble (a duplicate id before and after its
 * unchanged copy, a plan failing validation, one without a usable id, another company's plan), a
 * baseline observation that counts stored records first, and later runs that change and delete.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { SchemaSettings } from "../../src/sync/company.js";
import { storeKinds } from "../support/stores.js";
import {
  admin,
  contentDump,
  FIRST,
  type Harness,
  putPlan,
  type SyncOptions,
  simPlan,
  startHarness,
} from "./sync-harness.js";

const T = (day: number) => `2025-05-${String(day).padStart(2, "0")}T00:00:00.000Z`;
const OBSERVE: SchemaSettings = {
  observe: true,
  valueCap: 50,
  contract: { plan: "evolve", scheduled_report: "evolve" },
};
const PLANS = 240;

describe.each(storeKinds())("the worker thread and the main thread decide alike, on $name", (kind) => {
  let h: Harness;
  let other: Store;
  beforeEach(async () => {
    h = await startHarness(kind, { plans: PLANS, reports: 0 });
    other = await h.openStore();
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  /** Everything a sync stores, without ids and times that differ between two databases. */
  async function stored(store: Store) {
    const sql = h.sqlOn(store);
    return {
      content: await contentDump(sql),
      texts: await sql.rows("SELECT id, raw_json FROM plans ORDER BY id"),
      scenarios: await sql.rows("SELECT * FROM plan_scenarios ORDER BY plan_id, position"),
      versions: await sql.rows(
        "SELECT id, content_hash, valid_from, valid_to, raw_json FROM plan_versions ORDER BY id, valid_from",
      ),
      unlisted: await sql.rows("SELECT plan_id FROM unlisted_plans ORDER BY plan_id"),
      rejected: await sql.rows(
        "SELECT entity, entity_id, content_hash, reason FROM rejected_records ORDER BY entity_id, content_hash, reason",
      ),
      observed: (await store.schema.observed({ companyId: FIRST })).map((p) => ({
        ...p,
        firstRunId: 0,
        lastRunId: 0,
      })),
      changes: (await store.schema.changes({ companyId: FIRST })).map((c) => ({ ...c, id: 0, runId: 0 })),
    };
  }

  /** The same sync into both databases: by the worker (no read-ahead) and by the main thread. */
  async function both(at: string, opts: SyncOptions = {}) {
    const byWorker = await h.sync(FIRST, { ...opts, at, readAheadBytes: 0 });
    const byMain = await h.sync(FIRST, { ...opts, at, store: other, readAheadBytes: 64 * 1024 * 1024 });
    const result = (r: typeof byWorker) => ({
      status: r.status,
      counts: r.counts,
      errors: r.errors,
      held: r.deletionsHeldBack,
    });
    expect(result(byWorker)).toEqual(result(byMain));
    // Only a worker's run says how long its transaction waited for it: never, since a tail this
    // short is read before the transaction opens (PlanListReceiver.settle).
    expect(byMain.readerWaitMs).toBeNull();
    if (byWorker.readerWaitMs !== null) expect(byWorker.readerWaitMs).toBe(0);
    expect(await stored(h.store)).toEqual(await stored(other));
    return byWorker;
  }

  it("stores the same through a list with every kind of trouble, run after run", async () => {
    const first = await both(T(1), { schema: { ...OBSERVE, observe: false } });
    expect(first.counts.inserted).toBe(PLANS);
    expect(first.readerWaitMs).toBe(0);
    // Mobile apps shared by many plans, so that the worker's file leaves most of them out (the
    // stores keep a run's first row of each): the dump's mobile_apps must still match.
    const apps = await h.rows("SELECT id FROM mobile_apps");
    expect(apps.length).toBeGreaterThan(1);
    expect((await h.rows("SELECT plan_id FROM plan_mobile_apps")).length).toBeGreaterThan(2 * apps.length);
    const ids = (await h.rows<{ id: number }>("SELECT id FROM plans ORDER BY id")).map((r) => r.id);
    const [a, b, c, d] = ids as [number, number, number, number];
    const template = await simPlan(h.sim, FIRST, a);
    for (const id of ids.slice(10, 30)) {
      const p = await simPlan(h.sim, FIRST, id);
      await putPlan(h.sim, FIRST, id, { ...p, plan_name: `changed ${id}`, extra_field: { n: id } });
    }
    // A changed copy of b before its unchanged element, and of c after it; a known plan (d) that
    // now fails validation; a bare string; another company's plan.
    await putPlan(h.sim, FIRST, 1, { ...(await simPlan(h.sim, FIRST, b)), plan_name: "earlier copy" });
    await putPlan(h.sim, FIRST, 990_001, { ...(await simPlan(h.sim, FIRST, c)), plan_name: "later copy" });
    await putPlan(h.sim, FIRST, d, { ...(await simPlan(h.sim, FIRST, d)), enabled: "yes" });
    await putPlan(h.sim, FIRST, 990_002, JSON.stringify("just a string"));
    await putPlan(h.sim, FIRST, 990_003, { ...template, id: 990_003, company_id: FIRST + 1 });
    const second = await both(T(2), { schema: OBSERVE });
    expect(second.status).toBe("partial");
    expect(second.counts.updated).toBeGreaterThanOrEqual(20);
    expect(second.counts.rejected).toBeGreaterThanOrEqual(4);

    // Then the trouble goes, plans change again and one is deleted.
    for (const key of [1, 990_001, 990_002, 990_003])
      await admin(h.sim, "DELETE", `companies/${FIRST}/plans/${key}`);
    await putPlan(h.sim, FIRST, d, { ...template, id: d, plan_name: "valid again" });
    await admin(h.sim, "DELETE", `companies/${FIRST}/plans/${ids[40]}`);
    for (const id of ids.slice(50, 60)) {
      const p = await simPlan(h.sim, FIRST, id);
      await putPlan(h.sim, FIRST, id, {
        ...p,
        plan_name: `changed again ${id}`,
        extra_field: "now a string",
      });
    }
    const third = await both(T(3), { schema: OBSERVE });
    expect(third.status).toBe("succeeded");
    expect(third.counts.deleted).toBe(1);
  });
});
