/**
 * The service as observed, through real syncs on every store kind: the first sync sets the
 * baseline, later ones record what changed (and nothing when nothing did), counts follow the
 * records held, and the contracts refuse or strip what is outside the accepted schema.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObservedPath } from "../../src/observed/port.js";
import type { SchemaSettings } from "../../src/sync/company.js";
import { storeKinds } from "../support/stores.js";
import { admin, FIRST, type Harness, putPlan, reportIdsOf, simPlan, startHarness } from "./sync-harness.js";

const T = (day: number) => `2025-04-0${day}T00:00:00.000Z`;
const contract = (plan: SchemaSettings["contract"]["plan"]): SchemaSettings => ({
  observe: true,
  valueCap: 50,
  contract: { plan, scheduled_report: "evolve" },
});

describe.each(storeKinds())("observing the service on $name", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  const observed = async () => h.store.schema.observed({ companyId: FIRST });
  const find = (paths: ObservedPath[], entity: string, path: string) =>
    paths.find((p) => p.entity === entity && p.path === path);
  const changes = async () =>
    (await h.store.schema.changes({ companyId: FIRST })).map(
      (c) => `${c.kind} ${c.entity} ${c.path} ${c.before} -> ${c.after}`,
    );

  it("sets the baseline on the first sync, writes nothing when nothing changed, and counts the records held", async () => {
    await h.sync(FIRST, { at: T(1) });
    const base = await observed();
    expect(find(base, "plan", "")?.present).toBe(6);
    expect(find(base, "plan", "id")?.types.integer).toBe(6);
    expect(find(base, "period", "")?.present).toBeGreaterThan(0);
    expect(find(base, "scheduled_report", "")?.present).toBe(2);
    expect(await changes()).toEqual([]);
    const again = await h.sync(FIRST, { at: T(2) });
    expect(again.counts.unchanged).toBe(8);
    expect(await observed()).toEqual(base);
    expect(await changes()).toEqual([]);
    // A deleted plan is taken out of the counts.
    expect((await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1003`)).status).toBe(200);
    await h.sync(FIRST, { at: T(3) });
    expect(find(await observed(), "plan", "")?.present).toBe(5);
    expect(find(await observed(), "plan", "id")?.types.integer).toBe(5);
  });

  it("records a new field, a new value and a type change, with the run and an example record", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1002);
    await putPlan(h.sim, FIRST, 1002, {
      ...plan,
      labels: ["nightly"],
      screen_shot_type: "ON_FAILURE_ONLY",
      alerts_enabled: "yes",
    });
    const bad = await h.sync(FIRST, { at: T(2) });
    // A documented field of the wrong type is still refused by the reader, whatever the contract.
    expect(bad.counts.rejected).toBe(1);
    await putPlan(h.sim, FIRST, 1002, { ...plan, labels: ["nightly"], screen_shot_type: "ON_FAILURE_ONLY" });
    const result = await h.sync(FIRST, { at: T(3) });
    expect(result.counts).toMatchObject({ updated: 1, rejected: 0 });
    const log = await h.store.schema.changes({ companyId: FIRST });
    expect(log.map((c) => [c.kind, c.entity, c.path, c.after, c.exampleId, c.runId])).toEqual(
      expect.arrayContaining([
        ["added", "plan", "labels", "array", 1002, result.runId],
        ["added", "plan", "labels[]", "string", 1002, result.runId],
        ["new_value", "plan", "screen_shot_type", "ON_FAILURE_ONLY", 1002, result.runId],
      ]),
    );
    expect(find(await observed(), "plan", "labels")).toMatchObject({
      present: 1,
      firstRunId: result.runId,
      firstSeenAt: T(3),
    });
    // Taken back: the path is gone from a complete list.
    await putPlan(h.sim, FIRST, 1002, plan);
    const back = await h.sync(FIRST, { at: T(4) });
    const gone = (await h.store.schema.changes({ sinceRunId: back.runId as number })).map(
      (c) => `${c.kind} ${c.path}`,
    );
    expect(gone).toEqual(
      expect.arrayContaining(["removed labels", "removed labels[]", "value_gone screen_shot_type"]),
    );
  });

  it("starts observing a mirror that had none (observation off before): the stored records are the baseline", async () => {
    await h.sync(FIRST, { at: T(1), schema: { ...contract("evolve"), observe: false } });
    expect(await observed()).toEqual([]);
    await h.sync(FIRST, { at: T(2) });
    expect(find(await observed(), "plan", "")?.present).toBe(6);
    expect(await changes()).toEqual([]);
  });

  it("under freeze, refuses a record with a new path, keeps its last version, records the change once; after --ack, takes it", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1004);
    await putPlan(h.sim, FIRST, 1004, { ...plan, nick: 5 });
    for (const day of [2, 3]) {
      const r = await h.sync(FIRST, { at: T(day), schema: contract("freeze") });
      expect(r.counts).toMatchObject({ rejected: 1, updated: 0, deleted: 0 });
    }
    const [rejected] = await h.rows<{ entity_id: number; reason: string }>(
      "SELECT entity_id, reason FROM rejected_records ORDER BY id LIMIT 1",
    );
    expect(rejected).toEqual({
      entity_id: 1004,
      reason: "outside the accepted schema (contract freeze): plan.nick: integer 5",
    });
    expect(await h.scalar("SELECT raw_json FROM plans WHERE id = 1004")).toBe(JSON.stringify(plan));
    expect(await changes()).toEqual(["added plan nick null -> integer"]);
    expect(await h.store.schema.acknowledge({ companyId: FIRST }, T(4))).toBe(1);
    const taken = await h.sync(FIRST, { at: T(5), schema: contract("freeze") });
    expect(taken.counts).toMatchObject({ rejected: 0, updated: 1 });
    expect(find(await observed(), "plan", "nick")?.types.integer).toBe(1);
  });

  it("under discard_value, stores the record without the paths outside the schema in its JSON columns (raw_json keeps them)", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1002);
    const alerts = [{ alert_type: "EMAIL", target: "a@example.com", secret_flag: true }];
    await putPlan(h.sim, FIRST, 1002, { ...plan, alerts });
    const r = await h.sync(FIRST, { at: T(2), schema: contract("discard_value") });
    expect(r.counts).toMatchObject({ updated: 1, rejected: 0 });
    const json = await h.scalar<string>("SELECT json FROM plan_alerts WHERE plan_id = 1002 AND position = 0");
    expect(JSON.parse(json)).not.toHaveProperty("secret_flag");
    expect(JSON.parse(await h.scalar<string>("SELECT raw_json FROM plans WHERE id = 1002")).alerts).toEqual(
      alerts,
    );
    expect(await changes()).toContain("added plan_alert secret_flag null -> boolean");
  });

  it("records a documented field sent with another type as a type change, with the records refused for it, once", async () => {
    await h.sync(FIRST, { at: T(1) });
    for (const id of [1002, 1004]) {
      const plan = await simPlan(h.sim, FIRST, id);
      await putPlan(h.sim, FIRST, id, {
        ...plan,
        plan_parallel_test_limit: String(plan.plan_parallel_test_limit),
      });
    }
    const run = await h.sync(FIRST, { at: T(2) });
    // The reader refuses them (their column holds integers), the observer still sees them.
    expect(run.counts).toMatchObject({ rejected: 2, updated: 0 });
    const log = await h.store.schema.changes({ companyId: FIRST });
    expect(log.map((c) => [c.kind, c.entity, c.path, c.before, c.after, c.refused, c.runId])).toEqual([
      ["type_changed", "plan", "plan_parallel_test_limit", "integer", "string,integer", 2, run.runId],
    ]);
    expect([1002, 1004]).toContain(log[0]?.exampleId);
    // What is known is still what the mirror holds: the refused records are not counted.
    expect(find(await observed(), "plan", "plan_parallel_test_limit")?.types.string).toBe(0);
    // Refused again, open or acknowledged: said once.
    await h.sync(FIRST, { at: T(3) });
    expect(await h.store.schema.acknowledge({ companyId: FIRST }, T(3))).toBe(1);
    const again = await h.sync(FIRST, { at: T(4) });
    expect(again.counts.rejected).toBe(2);
    expect(await h.store.schema.changes({ companyId: FIRST })).toHaveLength(1);
  });

  it("records no change for renamed, rewritten and deleted plans and new recipients", async () => {
    await h.sync(FIRST, { at: T(1) });
    for (const id of [1001, 1002, 1003, 1004, 1005]) {
      const plan = await simPlan(h.sim, FIRST, id);
      const alerts = (plan.alerts as Record<string, unknown>[]).map((a) => ({
        ...a,
        target: `new-${id}@example.com`,
      }));
      await putPlan(h.sim, FIRST, id, {
        ...plan,
        plan_name: `Renamed ${id}`,
        description: `Now ${id}`,
        alerts,
      });
    }
    expect((await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1006`)).status).toBe(200);
    const [reportId] = reportIdsOf(h.sim, FIRST);
    const report = JSON.parse((await admin(h.sim, "GET", `reports/${reportId}`)).text) as Record<
      string,
      unknown
    >;
    await admin(h.sim, "PUT", `reports/${reportId}`, {
      ...report,
      report_name: "Renamed report",
      email_list: ["someone.new@example.org"],
      created_user: "another.user",
    });
    const run = await h.sync(FIRST, { at: T(2) });
    expect(run.counts).toMatchObject({ updated: 6, deleted: 1, rejected: 0 });
    expect(await changes()).toEqual([]);
    // Their values are not kept: nothing to forget or to grow.
    expect(find(await observed(), "plan", "plan_name")).toMatchObject({ valuesCapped: true, values: [] });
    expect(find(await observed(), "scheduled_report", "email_list[]")).toMatchObject({ values: [] });
  });

  it("still records a new value of a documented enumeration, and of a new path whose values stay few", async () => {
    await h.sync(FIRST, { at: T(1) });
    // A new field, on 4 plans with one value: few values, each held by several plans.
    for (const id of [1001, 1002, 1003, 1004]) {
      const plan = await simPlan(h.sim, FIRST, id);
      await putPlan(h.sim, FIRST, id, { ...plan, tier: "gold" });
    }
    await h.sync(FIRST, { at: T(2) });
    const plan = await simPlan(h.sim, FIRST, 1004);
    await putPlan(h.sim, FIRST, 1004, { ...plan, screen_shot_type: "ON_FAILURE_ONLY" });
    for (const [id, tier] of [
      [1005, "silver"],
      [1006, "gold"],
    ] as const)
      await putPlan(h.sim, FIRST, id, { ...(await simPlan(h.sim, FIRST, id)), tier });
    const run = await h.sync(FIRST, { at: T(3) });
    expect(
      (await h.store.schema.changes({ sinceRunId: run.runId as number })).map(
        (c) => `${c.kind} ${c.path} ${c.after}`,
      ),
    ).toEqual(["new_value screen_shot_type ON_FAILURE_ONLY", "new_value tier silver"]);
  });
});
