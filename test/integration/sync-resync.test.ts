import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { PLAN_CHILD_TABLES } from "../../src/tables/table-names.js";
import { storeKind, storeKinds } from "../support/stores.js";
import {
  childSnapshot,
  FIRST,
  type Harness,
  putPlan,
  SECOND,
  simPlan,
  startHarness,
} from "./sync-harness.js";

describe.each(storeKinds())("re-syncs and companies on $name", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  describe("a re-sync", () => {
    it("with nothing changed counts everything unchanged and rewrites no child row", async () => {
      await h.sync(FIRST, { at: "2025-03-01T00:00:00.000Z" });
      const before = await childSnapshot(h);
      const result = await h.sync(FIRST, { at: "2025-03-02T00:00:00.000Z" });
      expect(result.status).toBe("succeeded");
      expect(result.counts).toEqual({
        fetched: 8,
        inserted: 0,
        updated: 0,
        unchanged: 8,
        deleted: 0,
        rejected: 0,
      });
      expect(await childSnapshot(h)).toEqual(before);
      expect(await h.scalar("SELECT count(*) FROM plan_versions")).toBe(6);
      expect(await h.scalar("SELECT count(*) FROM report_versions")).toBe(2);
      // No plan row was written; the complete list vouches for every live plan.
      expect(await h.rows("SELECT DISTINCT first_seen_at, seen_at FROM plans")).toEqual([
        { first_seen_at: "2025-03-01T00:00:00.000Z", seen_at: "2025-03-01T00:00:00.000Z" },
      ]);
      expect(await h.rows("SELECT DISTINCT last_seen_at FROM v_plans")).toEqual([
        { last_seen_at: "2025-03-02T00:00:00.000Z" },
      ]);
      expect(await h.scalar("SELECT count(*) FROM sync_runs WHERE status = 'succeeded'")).toBe(2);
    });
  });

  describe("several companies", () => {
    it("stores each configured company's plans under its own company_id", async () => {
      for (const id of [FIRST, SECOND]) expect((await h.sync(id)).status).toBe("succeeded");
      const byCompany = await h.rows(
        "SELECT company_id, count(*) AS n, min(id) AS lo, max(id) AS hi FROM plans GROUP BY company_id ORDER BY company_id",
      );
      expect(byCompany).toEqual([
        { company_id: FIRST, n: 6, lo: 1001, hi: 1006 },
        { company_id: SECOND, n: 6, lo: 1017, hi: 1022 },
      ]);
      expect(await h.rows("SELECT id, company_id FROM scheduled_reports ORDER BY id")).toEqual([
        { id: 132, company_id: FIRST },
        { id: 133, company_id: FIRST },
        { id: 134, company_id: SECOND },
        { id: 135, company_id: SECOND },
      ]);
    });

    it("still flags a report's link to another company's plan as dangling once both are synced", async () => {
      for (const id of [FIRST, SECOND]) await h.sync(id);
      // Report 132 (FIRST) names plan 1017, which exists, but belongs to SECOND.
      const link = await h.rows<{ dangling: number; plan_name: string | null }>(
        "SELECT dangling, plan_name FROM v_report_plan_coverage WHERE report_id = 132 AND plan_id = 1017",
      );
      expect(await h.scalar("SELECT company_id FROM plans WHERE id = 1017")).toBe(SECOND);
      expect(link).toEqual([{ dangling: 1, plan_name: null }]);
    });

    it("ends partial when the token lists another company's plans, storing and deleting nothing, saying so", async () => {
      expect((await h.sync(SECOND, { reportIds: [] })).status).toBe("succeeded");
      const before = await h.scalar(
        "SELECT count(*) FROM plans WHERE company_id = ? AND deleted_at IS NULL",
        SECOND,
      );
      // Now SECOND's sync runs with FIRST's credentials.
      const result = await h.sync(SECOND, { client: h.client(SECOND, h.passwordAuth(FIRST)), reportIds: [] });
      expect(result.status).toBe("partial");
      expect(result.counts).toMatchObject({ fetched: 6, inserted: 0, deleted: 0, rejected: 0 });
      expect(result.errors.join("\n")).toContain("deletions held back");
      expect(result.errors.join("\n")).toContain(`6 plan(s) belong to company ${FIRST}, not ${SECOND}`);
      expect(await h.scalar("SELECT count(*) FROM plans WHERE company_id = ?", FIRST)).toBe(0);
      expect(
        await h.scalar("SELECT count(*) FROM plans WHERE company_id = ? AND deleted_at IS NULL", SECOND),
      ).toBe(before);
      expect(await h.scalar("SELECT count(*) FROM rejected_records")).toBe(0);
      expect(await h.rows("SELECT code FROM sync_errors WHERE run_id = ? ORDER BY id", result.runId)).toEqual(
        [{ code: "COMPANY_MISMATCH" }, { code: "DELETIONS_HELD_BACK" }],
      );
    });
  });
});

describe("a no-change re-sync on postgres", () => {
  const kind = storeKind("postgres");
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  it("with nothing changed writes no row of plans, their children or their versions (every xmin unchanged)", async () => {
    await h.sync(FIRST, { at: "2025-03-01T00:00:00.000Z" });
    // The transaction that last wrote each row, for every table a plan lives in.
    const xmins = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of ["plans", ...PLAN_CHILD_TABLES, "plan_versions", "mobile_apps"])
        out[table] = await h.rows(`SELECT xmin::text AS x, ctid::text AS c FROM ${table} ORDER BY ctid`);
      return out;
    };
    const before = await xmins();
    expect(before.plans?.length).toBe(6);
    const result = await h.sync(FIRST, { at: "2025-03-02T00:00:00.000Z" });
    expect(result.counts).toMatchObject({ unchanged: 8, inserted: 0, updated: 0, deleted: 0 });
    expect(await xmins()).toEqual(before);
    // And the same check sees a change: one plan renamed rewrites its row.
    const plan = await simPlan(h.sim, FIRST, 1002);
    await putPlan(h.sim, FIRST, 1002, { ...plan, plan_name: "Renamed" });
    await h.sync(FIRST, { at: "2025-03-03T00:00:00.000Z" });
    expect((await xmins()).plans).not.toEqual(before.plans);
  });
});
