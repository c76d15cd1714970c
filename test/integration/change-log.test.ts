/**
 * The field-level change log (v_plan_changes, v_report_changes) on both stores: one row per
 * changed field or list member, the record's first version and its deletion, nothing for
 * equal JSON escaped otherwise, and the metadata quirk read.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeKinds } from "../support/stores.js";
import { admin, FIRST, type Harness, putPlan, reportIdsOf, simPlan, startHarness } from "./sync-harness.js";

const T1 = "2025-01-01T00:00:00.000Z";
const T2 = "2025-01-02T00:00:00.000Z";
const T3 = "2025-01-03T00:00:00.000Z";

interface Change {
  path: string;
  kind: string;
  value_before: string | null;
  value_after: string | null;
}

describe.each(storeKinds())("the change log on $name", (kind) => {
  let h: Harness;
  let firstRun: number | null;
  beforeEach(async () => {
    h = await startHarness(kind);
    const first = await h.sync(FIRST, { at: T1 });
    expect(first.status).toBe("succeeded");
    firstRun = first.runId;
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  /** The field rows of one record's change at `at` (record-level rows left out), in a stable order. */
  async function changesOf(view: string, id: number, at: string): Promise<Change[]> {
    return h.rows<Change>(
      `SELECT path, kind, value_before, value_after FROM ${view}
       WHERE id = ? AND changed_at = ? AND path <> '' ORDER BY path, kind, value_before, value_after`,
      id,
      at,
    );
  }

  it("lists a record's first version as the whole record added, with its run and text", async () => {
    const rows = await h.rows<Change & { run_id: number; changed_at: string; company_id: number }>(
      "SELECT run_id, company_id, changed_at, path, kind, value_before, value_after FROM v_plan_changes WHERE id = 1002",
    );
    expect(rows).toEqual([
      {
        run_id: firstRun,
        company_id: FIRST,
        changed_at: T1,
        path: "",
        kind: "added",
        value_before: null,
        value_after: await h.scalar("SELECT raw_json FROM plans WHERE id = 1002"),
      },
    ]);
    // Every plan and report has its row, and only that.
    expect(await h.scalar("SELECT count(*) FROM v_plan_changes")).toBe(6);
    expect(await h.scalar("SELECT count(*) FROM v_report_changes WHERE path = '' AND kind = 'added'")).toBe(
      2,
    );
  });

  it("lists each changed field by its path, list members added and removed, and no re-escaped text", async () => {
    const plan = await simPlan(h.sim, FIRST, 1002);
    const period = plan.period as Record<string, unknown>;
    const changed = {
      ...plan,
      plan_name: "Renamed",
      period: { ...period, start_date: 1634459400000, end_date: undefined },
      scenarios: [63085, 14831, 20110, 76736, 33633, 72232, 99999],
      environments: [{ id: 5 }, { id: 5 }, { id: 30 }],
      resolutions: {
        WIN8: "1920x1080",
        WIN10: "2560x1440",
        MAC: "1920x1080",
        VISTA: "1366x768",
        LINUX: "auto",
      },
      video_enabled: false,
    };
    await putPlan(h.sim, FIRST, 1002, changed);
    // Plan 1001 again, its non-ASCII text written as \u escapes: the same values, no field changed.
    const escaped = JSON.stringify(await simPlan(h.sim, FIRST, 1001)).replace(/ş/g, "\\u015f");
    expect(escaped).toContain("\\u015f");
    await putPlan(h.sim, FIRST, 1001, escaped);
    const run = await h.sync(FIRST, { at: T2 });
    expect(run.counts.updated).toBe(2);
    expect(await h.scalar("SELECT count(*) FROM plan_versions WHERE id = 1001")).toBe(2);
    expect(await changesOf("v_plan_changes", 1001, T2)).toEqual([]);
    expect(await changesOf("v_plan_changes", 1002, T2)).toEqual([
      { path: "environments", kind: "added", value_before: null, value_after: "30" },
      { path: "environments", kind: "added", value_before: null, value_after: "5" },
      { path: "environments", kind: "removed", value_before: "24", value_after: null },
      { path: "period.end_date", kind: "removed", value_before: "1644049740000", value_after: null },
      {
        path: "period.start_date",
        kind: "changed",
        value_before: "1634459340000",
        value_after: "1634459400000",
      },
      { path: "plan_name", kind: "changed", value_before: "Régression nocturne 2", value_after: "Renamed" },
      { path: "resolutions.LINUX", kind: "added", value_before: null, value_after: "auto" },
      { path: "resolutions.WIN10", kind: "changed", value_before: "1920x1080", value_after: "2560x1440" },
      { path: "scenarios", kind: "added", value_before: null, value_after: "99999" },
      { path: "scenarios", kind: "removed", value_before: "91676", value_after: null },
      { path: "video_enabled", kind: "changed", value_before: "true", value_after: "false" },
    ]);
    expect(await h.scalar("SELECT DISTINCT run_id FROM v_plan_changes WHERE changed_at = ?", T2)).toBe(
      run.runId,
    );
  });

  it("reads the fields of mobile_app_metadata, the service's \\' included, as paths", async () => {
    const plan = await simPlan(h.sim, FIRST, 1003);
    const app = plan.selected_android_mobile_app as Record<string, unknown>;
    const meta = app.mobile_app_metadata as string;
    expect(meta).toContain("L\\'Appli");
    const app2 = {
      ...app,
      mobile_app_metadata: meta.replace('"9.7.1"', '"9.8.0"').replace("L\\'Appli", "L\\'App"),
    };
    await putPlan(h.sim, FIRST, 1003, { ...plan, selected_android_mobile_app: app2 });
    await h.sync(FIRST, { at: T2 });
    expect(await changesOf("v_plan_changes", 1003, T2)).toEqual([
      {
        path: "selected_android_mobile_app.mobile_app_metadata.label",
        kind: "changed",
        value_before: "L'Appli de Test",
        value_after: "L'App de Test",
      },
      {
        path: "selected_android_mobile_app.mobile_app_metadata.versionName",
        kind: "changed",
        value_before: "9.7.1",
        value_after: "9.8.0",
      },
    ]);
  });

  it("lists a deletion as the whole record removed, in the run that saw it gone, and a return as added", async () => {
    const original = (await admin(h.sim, "GET", `companies/${FIRST}/plans/1004`)).text;
    expect((await admin(h.sim, "DELETE", `companies/${FIRST}/plans/1004`)).status).toBe(200);
    const gone = await h.sync(FIRST, { at: T2 });
    expect(
      await h.rows(
        "SELECT run_id, changed_at, kind, value_before, value_after FROM v_plan_changes WHERE id = 1004 AND changed_at = ?",
        T2,
      ),
    ).toEqual([
      { run_id: gone.runId, changed_at: T2, kind: "removed", value_before: original, value_after: null },
    ]);

    await putPlan(h.sim, FIRST, 1004, JSON.stringify({ ...JSON.parse(original), plan_name: "Back" }));
    const back = await h.sync(FIRST, { at: T3 });
    expect(
      await h.rows(
        "SELECT run_id, path, kind, value_before, value_after FROM v_plan_changes WHERE id = 1004 AND changed_at = ? ORDER BY path",
        T3,
      ),
    ).toEqual([
      {
        run_id: back.runId,
        path: "",
        kind: "added",
        value_before: null,
        value_after: await h.scalar("SELECT raw_json FROM plans WHERE id = 1004"),
      },
      {
        run_id: back.runId,
        path: "plan_name",
        kind: "changed",
        value_before: "Smoke 4",
        value_after: "Back",
      },
    ]);
  });

  it("lists a report's plan ids and recipients as members", async () => {
    const [reportId] = reportIdsOf(h.sim, FIRST);
    const report = JSON.parse((await admin(h.sim, "GET", `reports/${reportId}`)).text) as Record<
      string,
      unknown
    >;
    const alerts = report.alerts as Record<string, unknown>[];
    const changed = {
      ...report,
      plan_id_list: [1003, 1004, 1017, 1005],
      email_list: ["ops@example.org", "qa@example.org"],
      alerts: [{ ...alerts[0], target: "qa@example.org" }, alerts[1]],
    };
    expect((await admin(h.sim, "PUT", `reports/${reportId}`, changed)).status).toBeLessThan(300);
    await h.sync(FIRST, { at: T2 });
    expect(await changesOf("v_report_changes", reportId as number, T2)).toEqual([
      { path: "alerts.target", kind: "added", value_before: null, value_after: "qa@example.org" },
      { path: "alerts.target", kind: "removed", value_before: "ops@example.org", value_after: null },
      { path: "email_list", kind: "added", value_before: null, value_after: "qa@example.org" },
      { path: "plan_id_list", kind: "added", value_before: null, value_after: "1005" },
      { path: "plan_id_list", kind: "removed", value_before: "1007", value_after: null },
    ]);
  });

  it("never fails for a record nested deeper than a store's JSON reader goes", async () => {
    const plan = await simPlan(h.sim, FIRST, 1005);
    let deep: unknown = "bottom";
    for (let i = 0; i < 2_000; i++) deep = [deep];
    await putPlan(h.sim, FIRST, 1005, { ...plan, plan_name: "Deep", extra: deep });
    const run = await h.sync(FIRST, { at: T2 });
    expect(run.counts).toMatchObject({ updated: 1, rejected: 0 });
    const rows = await h.rows<Change>(
      "SELECT path, kind, value_before, value_after FROM v_plan_changes WHERE id = 1005 AND changed_at = ?",
      T2,
    );
    // What the store's JSON reader cannot parse has no fields: the other records still answer.
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(await h.scalar("SELECT count(*) FROM v_plan_changes WHERE id <> 1005")).toBe(5);
  });

  it("answers one plan's changes from the history index", async () => {
    const plan =
      kind.name === "sqlite"
        ? (
            await h.rows<{ detail: string }>(
              "EXPLAIN QUERY PLAN SELECT * FROM v_plan_changes WHERE id = ?",
              1002,
            )
          ).map((r) => r.detail)
        : (
            await h.rows<{ "QUERY PLAN": string }>("EXPLAIN SELECT * FROM v_plan_changes WHERE id = ?", 1002)
          ).map((r) => r["QUERY PLAN"]);
    const text = plan.join("\n");
    expect(text).toMatch(/plan_versions_id_idx/);
    // No full pass over the history.
    expect(text).not.toMatch(/SCAN (n|v|p)\b|Seq Scan on plan_versions/);
  });
});
