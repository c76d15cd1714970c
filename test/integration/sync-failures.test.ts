import { afterAll, afterEach, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { storeKinds } from "../support/stores.js";
import {
  admin,
  childSnapshot,
  contentDump,
  FIRST,
  type Harness,
  logger,
  SECOND,
  startHarness,
} from "./sync-harness.js";

const T1 = "2025-01-01T00:00:00.000Z";
const T2 = "2025-01-02T00:00:00.000Z";
const PLANS_ROUTE = "GET /api/plans";
const REPORT_ROUTE = "GET /api/scheduled-reports/scheduled/:id";

describe.each(storeKinds())("sync failures on $name", (kind) => {
  let h: Harness;
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  describe("a plan list that cannot be fetched", () => {
    it("fails the run, records the error, and deletes or changes nothing", async () => {
      h = await startHarness(kind);
      await h.sync(FIRST, { at: T1 });
      const plansBefore = await h.rows("SELECT * FROM plans ORDER BY id");
      const childrenBefore = await childSnapshot(h);
      // Also remove a plan: a sync that deleted on a failed list would now mark it deleted.
      await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1002`);
      expect((await admin(h.sim, "PUT", "faults", { errorRate: 1 })).status).toBe(200);

      const result = await h.sync(FIRST, { at: T2 });
      expect(result.status).toBe("failed");
      expect(result.counts).toEqual({
        fetched: 0,
        inserted: 0,
        updated: 0,
        unchanged: 0,
        deleted: 0,
        rejected: 0,
      });
      expect(result.errors[0]).toMatch(/^plans: listPlans: HTTP 500/);
      // Every attempt was made, none more.
      expect(h.sim.state.stats.count(PLANS_ROUTE, 500)).toBe(4);

      expect(await h.rows("SELECT * FROM plans ORDER BY id")).toEqual(plansBefore);
      expect(await childSnapshot(h)).toEqual(childrenBefore);
      expect(await h.scalar("SELECT count(*) FROM plans WHERE deleted_at IS NOT NULL")).toBe(0);
      expect(await h.scalar("SELECT count(*) FROM plan_versions")).toBe(6);
      const [run] = await h.rows("SELECT * FROM sync_runs WHERE id = ?", result.runId);
      expect(run).toMatchObject({ status: "failed", fetched: 0, deleted: 0, finished_at: T2 });
      expect(
        await h.rows(
          "SELECT entity, entity_id, code, http_status FROM sync_errors WHERE run_id = ? ORDER BY entity, entity_id",
          result.runId,
        ),
      ).toEqual([
        { entity: "plans", entity_id: null, code: "INTERNAL_SERVER_ERROR", http_status: 500 },
        { entity: "scheduled_report", entity_id: 132, code: "INTERNAL_SERVER_ERROR", http_status: 500 },
        { entity: "scheduled_report", entity_id: 133, code: "INTERNAL_SERVER_ERROR", http_status: 500 },
      ]);
    });
  });

  describe("scheduled reports", () => {
    it("marks a report that answers 404 as deleted and drops it from the coverage view", async () => {
      h = await startHarness(kind);
      await h.sync(FIRST, { at: T1 });
      expect((await admin(h.sim, "DELETE", "reports/133")).status).toBe(200);
      const result = await h.sync(FIRST, { at: T2 });
      expect(result.status).toBe("succeeded");
      expect(result.counts).toMatchObject({ deleted: 1, unchanged: 7 });
      expect(await h.rows("SELECT id, deleted_at FROM scheduled_reports ORDER BY id")).toEqual([
        { id: 132, deleted_at: null },
        { id: 133, deleted_at: T2 },
      ]);
      expect(await h.scalar("SELECT valid_to FROM report_versions WHERE id = 133")).toBe(T2);
      expect(await h.scalar("SELECT count(*) FROM v_report_plan_coverage WHERE report_id = 133")).toBe(0);
      expect(await h.scalar("SELECT count(*) FROM sync_errors")).toBe(0);
    });

    it("records a report of another company (403) as an error, syncs the rest, and ends partial", async () => {
      h = await startHarness(kind);
      const result = await h.sync(FIRST, { reportIds: [132, 134] });
      expect(result.status).toBe("partial");
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/^report 134: getScheduledReport: HTTP 403 ACCESS_DENIED/);
      expect(result.counts).toMatchObject({ inserted: 7, rejected: 0 });
      expect(
        await h.rows(
          "SELECT entity, entity_id, code, http_status FROM sync_errors WHERE run_id = ?",
          result.runId,
        ),
      ).toEqual([{ entity: "scheduled_report", entity_id: 134, code: "ACCESS_DENIED", http_status: 403 }]);
      expect(await h.scalar("SELECT count(*) FROM plans")).toBe(6);
      expect(await h.rows("SELECT id FROM scheduled_reports")).toEqual([{ id: 132 }]);
      expect(await h.scalar("SELECT status FROM sync_runs WHERE id = ?", result.runId)).toBe("partial");
    });

    it("rejects a report whose body breaks the schema and keeps its raw JSON", async () => {
      h = await startHarness(kind);
      const bad = JSON.stringify({ id: 132, plan_id_list: ["1001"], report_name: 5 });
      await admin(h.sim, "PUT", "reports/132", bad);
      const result = await h.sync(FIRST);
      expect(result.counts).toMatchObject({ rejected: 1, inserted: 7 });
      const [rejected] = await h.rows("SELECT entity, entity_id, reason, raw_json FROM rejected_records");
      expect(rejected).toMatchObject({ entity: "scheduled_report", entity_id: 132, raw_json: bad });
      expect((rejected as { reason: string }).reason).toMatch(/plan_id_list/);
    });
  });

  describe("a flaky service", () => {
    it("still syncs the same data through 500s and 429s by retrying", async () => {
      h = await startHarness(kind, { reports: 4 }, { maxAttempts: 10 });
      const clean = await h.openStore();
      for (const id of [FIRST, SECOND]) expect((await h.sync(id, { store: clean })).status).toBe("succeeded");

      await admin(h.sim, "PUT", "faults", {
        errorRate: 0.3,
        rateLimitRate: 0.3,
        retryAfterSeconds: 0.01,
        latencyMs: 2,
      });
      for (const id of [FIRST, SECOND]) {
        const result = await h.sync(id);
        expect(result.errors).toEqual([]);
        expect(result.status).toBe("succeeded");
      }
      expect(await contentDump(h)).toEqual(await contentDump(h.sqlOn(clean)));

      const stats = h.sim.state.stats;
      const limited = stats.count(PLANS_ROUTE, 429) + stats.count(REPORT_ROUTE, 429);
      const failed = stats.count(PLANS_ROUTE, 500) + stats.count(REPORT_ROUTE, 500);
      expect(limited).toBeGreaterThan(0);
      expect(failed).toBeGreaterThan(0);
      // Clean pass: 2 plan lists + 8 reports; the faulty pass needed at least that many successes.
      expect(stats.count(PLANS_ROUTE, 200) + stats.count(REPORT_ROUTE, 200)).toBe(20);
    });
  });

  describe("a wrong REST root", () => {
    it("deletes no report when every path answers 404", async () => {
      h = await startHarness(kind);
      await h.sync(FIRST, { at: T1 });
      const live = await h.scalar("SELECT count(*) FROM scheduled_reports WHERE deleted_at IS NULL");
      expect(live).toBeGreaterThan(0);
      const company = h.sim.companies.find((c) => c.id === FIRST);
      const wrongRoot = new TasClient({
        http: h.http,
        baseUrl: h.sim.baseUrl.replace("/Testinium.RestApi", "/Wrong.Root"),
        auth: new StaticTokenProvider(company?.staticToken ?? ""),
        companyId: FIRST,
        maxAttempts: 1,
        logger,
      });
      const result = await h.sync(FIRST, { at: T2, client: wrongRoot });
      expect(result.status).toBe("failed");
      expect(result.counts.deleted).toBe(0);
      expect(await h.scalar("SELECT count(*) FROM scheduled_reports WHERE deleted_at IS NULL")).toBe(live);
      expect(await h.scalar("SELECT count(*) FROM plans WHERE deleted_at IS NOT NULL")).toBe(0);
    });
  });
});
