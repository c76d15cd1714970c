import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeKinds } from "../support/stores.js";
import { FIRST, type Harness, putPlan, simPlan, startHarness } from "./sync-harness.js";

type Wire = Record<string, unknown> & { id: number };
const JAVA_DAYS = ["", "SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];

describe.each(storeKinds())("a first full sync on $name", (kind) => {
  // One sync per kind: every test below only reads what it stored.
  let h: Harness;
  let wire: Wire[];
  afterAll(async () => {
    await h?.close();
    await kind.cleanup();
  });
  beforeAll(async () => {
    h = await startHarness(kind);
    // Sunday and Saturday only: 1 = SUNDAY in the Java Calendar convention.
    const plan = await simPlan(h.sim, FIRST, 1002);
    await putPlan(h.sim, FIRST, 1002, {
      ...plan,
      period: { period_type: "REPETITIVE", days_of_week: "1,7" },
    });
    // An app whose metadata has an invalid escape other than the service's \' quirk.
    const mobile = await simPlan(h.sim, FIRST, 1006);
    await putPlan(h.sim, FIRST, 1006, {
      ...mobile,
      selected_ios_mobile_app: {
        ...(mobile.selected_ios_mobile_app as object),
        id: 7999,
        mobile_app_metadata: String.raw`{"bundleName":"Bob\x27s","bundleVersion":"1.0"}`,
      },
    });
    wire = h.sim.state.plansOf(FIRST) as Wire[];
    const result = await h.sync(FIRST);
    expect(result.errors).toEqual([]);
    expect(result.status).toBe("succeeded");
  });

  it("stores every plan of the company with its platform", async () => {
    const stored = await h.rows<{ id: number; company_id: number; platform: string; deleted_at: null }>(
      "SELECT id, company_id, platform, deleted_at FROM plans ORDER BY id",
    );
    expect(stored).toEqual(
      wire.map((p) => ({
        id: p.id,
        company_id: FIRST,
        platform: p.selected_android_mobile_app || p.selected_ios_mobile_app ? "mobile" : "desktop",
        deleted_at: null,
      })),
    );
    expect(stored.filter((p) => p.platform === "mobile").map((p) => p.id)).toEqual([1003, 1006]);
  });

  it("parses each desktop resolution into width and height, keeping odd values raw", async () => {
    const withResolutions = wire.filter((x) => x.resolutions);
    // The loop below checks something: the data has plans with resolutions.
    expect(withResolutions.length).toBeGreaterThan(0);
    for (const p of withResolutions) {
      const got = await h.rows(
        "SELECT os, resolution, width, height FROM plan_resolutions WHERE plan_id = ? ORDER BY os",
        p.id,
      );
      const expected = Object.entries(p.resolutions as Record<string, string>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([os, resolution]) => {
          const m = /^(\d+)x(\d+)$/.exec(resolution);
          return { os, resolution, width: m ? Number(m[1]) : null, height: m ? Number(m[2]) : null };
        });
      expect(got).toEqual(expected);
    }
    expect(
      await h.scalar("SELECT count(*) FROM plan_resolutions WHERE width > 0 AND height > 0"),
    ).toBeGreaterThan(0);
    expect(
      await h.scalar("SELECT count(*) FROM plan_resolutions WHERE resolution = 'auto' AND width IS NULL"),
    ).toBe(1);
  });

  it("names days of week in the Java convention", async () => {
    expect(
      await h.rows(
        "SELECT day_number, day_name FROM plan_days_of_week WHERE plan_id = 1002 ORDER BY day_number",
      ),
    ).toEqual([
      { day_number: 1, day_name: "SUNDAY" },
      { day_number: 7, day_name: "SATURDAY" },
    ]);
    for (const p of wire) {
      const days = String((p.period as { days_of_week?: string }).days_of_week ?? "");
      const expected = [...new Set(days.split(",").filter(Boolean).map(Number))]
        .sort()
        .map((n) => JAVA_DAYS[n]);
      const got = await h.rows<{ day_name: string }>(
        "SELECT day_name FROM plan_days_of_week WHERE plan_id = ? ORDER BY day_number",
        p.id,
      );
      expect(
        got.map((d) => d.day_name),
        `plan ${p.id}`,
      ).toEqual(expected);
    }
    expect(await h.scalar("SELECT day_names FROM v_plan_schedule WHERE plan_id = 1002")).toBe(
      "SUNDAY,SATURDAY",
    );
  });

  it("counts a repeated environment id once with its occurrences", async () => {
    expect(
      await h.rows("SELECT environment_id, occurrences FROM plan_environments WHERE plan_id = 1001"),
    ).toEqual([{ environment_id: 7, occurrences: 16 }]);
  });

  it("keeps scenario order, alerts and fetch_app_files of every plan", async () => {
    for (const p of wire) {
      const scenarios = await h.rows<{ scenario_id: number }>(
        "SELECT scenario_id FROM plan_scenarios WHERE plan_id = ? ORDER BY position",
        p.id,
      );
      expect(scenarios.map((s) => s.scenario_id)).toEqual(p.scenarios);
      const alerts = await h.rows<{ json: string }>(
        "SELECT json FROM plan_alerts WHERE plan_id = ? ORDER BY position",
        p.id,
      );
      expect(alerts.map((a) => JSON.parse(a.json))).toEqual(p.alerts);
      const files = await h.rows<{ json: string }>(
        "SELECT json FROM plan_fetch_app_files WHERE plan_id = ? ORDER BY position",
        p.id,
      );
      expect(files.map((a) => JSON.parse(a.json))).toEqual(p.fetch_app_files ?? []);
    }
  });

  it("stores mobile apps with typed columns, reads the \\' quirk, and keeps other unparsable metadata raw and flagged", async () => {
    const apps = await h.rows<Record<string, unknown>>("SELECT * FROM mobile_apps ORDER BY id");
    const broken = apps.filter((a) => a.metadata_error !== null);
    expect(broken).toMatchObject([{ id: 7999, operating_system: "IOS", app_id: null, metadata_repaired: 0 }]);
    expect(String(broken[0]?.metadata_json)).toBe(
      String.raw`{"bundleName":"Bob\x27s","bundleVersion":"1.0"}`,
    );
    expect(String(broken[0]?.metadata_error)).toMatch(/^invalid JSON: /);
    // The service's \' escape: the text kept as received, the values read, the row flagged.
    const repaired = apps.filter((a) => a.metadata_repaired === 1);
    expect(repaired).toMatchObject([
      {
        id: 7001,
        operating_system: "ANDROID",
        metadata_error: null,
        app_id: "fr.exemple.applitest",
        display_name: "L'Appli de Test",
      },
    ]);
    expect(String(repaired[0]?.metadata_json)).toContain("L\\'Appli");
    expect(
      await h.rows("SELECT operating_system, mobile_app_id FROM plan_mobile_apps WHERE plan_id = 1003"),
    ).toContainEqual({
      operating_system: "ANDROID",
      mobile_app_id: 7001,
    });
    const parsed = apps.filter((a) => a.metadata_error === null && a.metadata_repaired === 0);
    expect(parsed.length).toBeGreaterThan(0);
    for (const app of parsed) {
      const meta = JSON.parse(String(app.metadata_json));
      if (app.operating_system === "ANDROID") {
        expect(app).toMatchObject({
          app_id: meta.packageName,
          display_name: meta.label,
          version_code: meta.versionCode,
        });
        expect(typeof app.version_code).toBe("number");
      } else {
        expect(app).toMatchObject({
          app_id: meta.bundleName,
          display_name: meta.bundleDisplayName,
          version_name: meta.bundleVersion,
        });
      }
      expect(app.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    }
  });

  it("stores the configured reports with their children", async () => {
    const reports = (h.sim.state.reports.values() as Wire[]).filter(
      (r) => h.sim.state.reportOwner.get(r.id) === FIRST,
    );
    // The loop below checks something: the first company has reports.
    expect(reports.length).toBeGreaterThan(0);
    for (const r of reports) {
      expect(await h.scalar("SELECT report_name FROM scheduled_reports WHERE id = ?", r.id)).toBe(
        r.report_name,
      );
      const planIds = await h.rows<{ plan_id: number }>(
        "SELECT plan_id FROM report_plans WHERE report_id = ? ORDER BY plan_id",
        r.id,
      );
      expect(planIds.map((x) => x.plan_id)).toEqual(
        [...new Set(r.plan_id_list as number[])].sort((a, b) => a - b),
      );
      const emails = await h.rows<{ email: string }>(
        "SELECT email FROM report_recipients WHERE report_id = ?",
        r.id,
      );
      expect(emails.map((e) => e.email).sort()).toEqual([...(r.email_list as string[])].sort());
      expect(await h.scalar("SELECT count(*) FROM report_user_roles WHERE report_id = ?", r.id)).toBe(
        (r.user_roles as string[]).length,
      );
      expect(
        await h.scalar("SELECT string_agg(status, ',') FROM report_statuses WHERE report_id = ?", r.id),
      ).toBe("SUCCESS");
      expect(await h.scalar("SELECT count(*) FROM report_alerts WHERE report_id = ?", r.id)).toBe(
        (r.alerts as unknown[]).length,
      );
    }
  });

  it("flags report links to plans the list did not return as dangling", async () => {
    const coverage = await h.rows<{ plan_id: number; dangling: number; plan_name: string | null }>(
      "SELECT plan_id, dangling, plan_name FROM v_report_plan_coverage WHERE report_id = 132 ORDER BY plan_id",
    );
    const live = new Set(wire.map((p) => p.id));
    expect(coverage.length).toBeGreaterThan(1);
    for (const c of coverage) expect(c.dangling, `plan ${c.plan_id}`).toBe(live.has(c.plan_id) ? 0 : 1);
    // The generator links a never-listed plan id (1007) and company 5252's first plan (1017).
    expect(coverage.filter((c) => c.dangling).map((c) => c.plan_id)).toEqual([1007, 1017]);
  });

  it("records the run with its counts and one open version per record", async () => {
    expect(
      await h.rows(
        "SELECT company_id, trigger, status, fetched, inserted, updated, unchanged, deleted, rejected, error FROM sync_runs",
      ),
    ).toEqual([
      {
        company_id: FIRST,
        trigger: "test",
        status: "succeeded",
        fetched: 8,
        inserted: 8,
        updated: 0,
        unchanged: 0,
        deleted: 0,
        rejected: 0,
        error: null,
      },
    ]);
    expect(await h.scalar("SELECT count(*) FROM plan_versions WHERE valid_to IS NULL")).toBe(6);
    expect(await h.scalar("SELECT count(*) FROM report_versions WHERE valid_to IS NULL")).toBe(2);
    expect(await h.scalar("SELECT count(*) FROM v_plan_schedule")).toBe(6);
  });
});
