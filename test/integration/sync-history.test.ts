import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { summaryLine } from "../../src/commands/sync.js";
import { storeKinds } from "../support/stores.js";
import { admin, FIRST, type Harness, putPlan, simPlan, startHarness } from "./sync-harness.js";

const T1 = "2025-01-01T00:00:00.000Z";
const T2 = "2025-01-02T00:00:00.000Z";
const T3 = "2025-01-03T00:00:00.000Z";

describe.each(storeKinds())("history on $name", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind);
    expect((await h.sync(FIRST, { at: T1 })).status).toBe("succeeded");
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  /** The plan's stored version valid at `at`, as parsed JSON (null when none). */
  async function planAt(id: number, at: string): Promise<Record<string, unknown> | null> {
    // The view: the text of the current content lives in the plans row, not in its version.
    const raw = await h.scalar<string | undefined>(
      `SELECT raw_json FROM v_plan_versions
      WHERE id = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)`,
      id,
      at,
      at,
    );
    return raw === undefined ? null : (JSON.parse(raw) as Record<string, unknown>);
  }

  describe("history of a changed plan", () => {
    let oldName: unknown;
    beforeEach(async () => {
      const plan = await simPlan(h.sim, FIRST, 1002);
      oldName = plan.plan_name;
      await putPlan(h.sim, FIRST, 1002, { ...plan, plan_name: "Renamed", period: { days_of_week: "2,3" } });
    });

    it("updates the plan and its children and counts one update", async () => {
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.counts).toEqual({
        fetched: 8,
        inserted: 0,
        updated: 1,
        unchanged: 7,
        deleted: 0,
        rejected: 0,
      });
      expect(await h.scalar("SELECT plan_name FROM plans WHERE id = 1002")).toBe("Renamed");
      expect(
        await h.scalar(
          "SELECT string_agg(day_name, ',' ORDER BY day_number) FROM plan_days_of_week WHERE plan_id = 1002",
        ),
      ).toBe("MONDAY,TUESDAY");
      expect(await h.scalar("SELECT first_seen_at FROM plans WHERE id = 1002")).toBe(T1);
    });

    it("closes the old version and opens a new one", async () => {
      await h.sync(FIRST, { at: T2 });
      expect(
        await h.rows("SELECT valid_from, valid_to FROM plan_versions WHERE id = 1002 ORDER BY version_id"),
      ).toEqual([
        { valid_from: T1, valid_to: T2 },
        { valid_from: T2, valid_to: null },
      ]);
      expect(await h.scalar("SELECT count(*) FROM plan_versions WHERE id <> 1002")).toBe(5);
    });

    it.each([
      ["before the first sync", "2024-12-31T00:00:00.000Z", null],
      ["between the syncs", "2025-01-01T12:00:00.000Z", "old"],
      ["at the moment of the change", T2, "Renamed"],
      ["after the change", T3, "Renamed"],
    ])("answers what the plan looked like %s", async (_when, at, name) => {
      const original = await simPlan(h.sim, FIRST, 1001);
      await h.sync(FIRST, { at: T2 });
      const version = await planAt(1002, at);
      if (name === null) expect(version).toBeNull();
      else expect(version?.plan_name).toBe(name === "old" ? oldName : name);
      // An unchanged plan has one version for the whole time.
      if (name !== null) expect(await planAt(1001, at)).toEqual(original);
    });
  });

  describe("a deleted plan", () => {
    let original: string;
    beforeEach(async () => {
      original = (await admin(h.sim, "GET", `companies/${FIRST}/plans/1003`)).text;
      expect((await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1003`)).status).toBe(200);
    });

    it("gets deleted_at and its version closed, and leaves the schedule view", async () => {
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.counts).toMatchObject({ fetched: 7, deleted: 1, unchanged: 7 });
      expect(await h.scalar("SELECT deleted_at FROM plans WHERE id = 1003")).toBe(T2);
      expect(await h.scalar("SELECT valid_to FROM plan_versions WHERE id = 1003")).toBe(T2);
      expect(await h.scalar("SELECT count(*) FROM v_plan_schedule WHERE plan_id = 1003")).toBe(0);
      expect(await h.scalar("SELECT count(*) FROM plans WHERE deleted_at IS NOT NULL")).toBe(1);
    });

    it.each([
      ["unchanged", (text: string) => text],
      ["changed", (text: string) => JSON.stringify({ ...JSON.parse(text), plan_name: "Back again" })],
    ])("comes back %s: undeleted with a new open version", async (_how, body) => {
      await h.sync(FIRST, { at: T2 });
      await putPlan(h.sim, FIRST, 1003, body(original));
      const result = await h.sync(FIRST, { at: T3 });
      expect(result.counts).toMatchObject({ updated: 1, deleted: 0, inserted: 0 });
      expect(await h.scalar("SELECT deleted_at FROM plans WHERE id = 1003")).toBeNull();
      expect(await h.scalar("SELECT last_seen_at FROM v_plans WHERE id = 1003")).toBe(T3);
      expect(await h.scalar("SELECT seen_at FROM plans WHERE id = 1003")).toBe(T3);
      expect(
        await h.rows("SELECT valid_from, valid_to FROM plan_versions WHERE id = 1003 ORDER BY version_id"),
      ).toEqual([
        { valid_from: T1, valid_to: T2 },
        { valid_from: T3, valid_to: null },
      ]);
      expect(await h.scalar("SELECT count(*) FROM plan_mobile_apps WHERE plan_id = 1003")).toBeGreaterThan(0);
    });
  });

  describe("records that fail validation", () => {
    it("rejects a plan with wrong types, keeps its reason and raw JSON, and does not delete it", async () => {
      const plan = await simPlan(h.sim, FIRST, 1002);
      const bad = JSON.stringify({ ...plan, enabled: "yes", plan_parallel_test_limit: "ten" });
      await putPlan(h.sim, FIRST, 1002, bad);
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.status).toBe("succeeded");
      expect(result.counts).toMatchObject({ fetched: 8, rejected: 1, unchanged: 7, deleted: 0 });
      const [rejected] = await h.rows<{
        entity: string;
        entity_id: number;
        reason: string;
        raw_json: string;
      }>("SELECT entity, entity_id, reason, raw_json FROM rejected_records");
      expect(rejected).toMatchObject({ entity: "plan", entity_id: 1002, raw_json: bad });
      expect(rejected?.reason).toMatch(/enabled/);
      expect(rejected?.reason).toMatch(/plan_parallel_test_limit/);
      // The last good content stays, live.
      expect(await h.rows("SELECT deleted_at, plan_name FROM plans WHERE id = 1002")).toEqual([
        { deleted_at: null, plan_name: plan.plan_name },
      ]);
      expect(await h.scalar("SELECT rejected FROM sync_runs ORDER BY id DESC LIMIT 1")).toBe(1);
    });

    it("rejects a new plan with wrong types without storing it", async () => {
      const plan = await simPlan(h.sim, FIRST, 1001);
      await putPlan(h.sim, FIRST, 1999, { ...plan, id: 1999, scenarios: "1,2,3" });
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.counts).toMatchObject({ rejected: 1, inserted: 0 });
      expect(await h.scalar("SELECT count(*) FROM plans WHERE id = 1999")).toBe(0);
      expect(await h.scalar("SELECT reason FROM rejected_records WHERE entity_id = 1999")).toMatch(
        /scenarios/,
      );
    });

    it("deletes nothing when a rejected record has no id, ends partial, and says why in sync_errors", async () => {
      await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1006`);
      await putPlan(h.sim, FIRST, 1998, { company_id: FIRST, plan_name: "no id at all" });
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.counts).toMatchObject({ rejected: 1, deleted: 0 });
      expect(result.status).toBe("partial");
      expect(result.deletionsHeldBack).toBe(1);
      expect(summaryLine(result)).toMatch(
        /^company 5251: partial .* rejected 1; deletions held back \(1 plan\(s\)\)$/,
      );
      expect(await h.scalar("SELECT count(*) FROM plans WHERE deleted_at IS NOT NULL")).toBe(0);
      expect(await h.scalar("SELECT entity_id FROM rejected_records")).toBeNull();
      expect(
        await h.rows("SELECT entity, code, message FROM sync_errors WHERE run_id = ?", result.runId),
      ).toEqual([
        {
          entity: "plans",
          code: "DELETIONS_HELD_BACK",
          message:
            "1 plan(s) missing from the list were not marked deleted: 1 rejected record(s) have no usable id, so any of them may be a plan that seems gone",
        },
      ]);
      expect(await h.scalar("SELECT status FROM sync_runs WHERE id = ?", result.runId)).toBe("partial");
    });

    it("stores a plan with unknown fields and unknown enum values, keeping them in raw_json", async () => {
      const plan = await simPlan(h.sim, FIRST, 1004);
      const period = { ...(plan.period as object), period_type: "CRON" };
      const odd = { ...plan, screen_shot_type: "SOMETIMES", period, brand_new_field: { nested: [1, 2] } };
      await putPlan(h.sim, FIRST, 1004, odd);
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.counts).toMatchObject({ updated: 1, rejected: 0 });
      const [row] = await h.rows<{ screen_shot_type: string; period_type: string; raw_json: string }>(
        "SELECT screen_shot_type, period_type, raw_json FROM plans WHERE id = 1004",
      );
      expect(row).toMatchObject({ screen_shot_type: "SOMETIMES", period_type: "CRON" });
      expect(JSON.parse(row?.raw_json ?? "{}").brand_new_field).toEqual({ nested: [1, 2] });
    });
  });
});
