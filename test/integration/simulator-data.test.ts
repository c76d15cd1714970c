import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { planSchema, scheduledReportSchema } from "../../src/wire/schemas.js";

type Json = Record<string, unknown>;
type App = { id: number; mobile_app_metadata: string; created_at: string; operating_system: string };

let sim: RunningSimulator;
let plans: Json[];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, plans: 300, reports: 4 });
  const res = await fetch(`${sim.baseUrl}/api/plans`, {
    headers: { authorization: "Bearer sim-token-5251" },
  });
  plans = (await res.json()) as Json[];
});
afterAll(() => sim.close());

function apps(): App[] {
  return plans.flatMap((p) =>
    [p.selected_android_mobile_app, p.selected_ios_mobile_app].filter((a): a is App => a !== undefined),
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("simulator plan data", () => {
  it("makes every third plan a mobile plan and the rest desktop plans with resolutions", () => {
    expect(plans).toHaveLength(300);
    plans.forEach((plan, i) => {
      const mobile = i % 3 === 2;
      expect("clear_app_data" in plan).toBe(mobile);
      expect("resolutions" in plan).toBe(!mobile);
      if (mobile) expect(plan.selected_android_mobile_app ?? plan.selected_ios_mobile_app).toBeDefined();
    });
  });

  it("matches the client's wire schemas for plans and reports", async () => {
    for (const plan of plans) expect(planSchema.safeParse(plan).success).toBe(true);
    for (const report of sim.state.reports.values()) {
      expect(scheduledReportSchema.safeParse(report).success).toBe(true);
    }
  });

  it("reuses a small pool of apps, with exactly one whose metadata is not valid JSON", () => {
    const byId = new Map(apps().map((a) => [a.id, a]));
    expect(byId.size).toBeLessThanOrEqual(10);
    expect(apps().length).toBeGreaterThan(byId.size * 5);
    const broken = [...byId.values()].filter((a) => !parses(a.mobile_app_metadata));
    expect(broken).toHaveLength(1);
    expect(broken[0]?.mobile_app_metadata).toContain("\\'");
  });

  it("uses the real metadata keys, non-ASCII labels and the service's created_at format", () => {
    const parsed = apps()
      .filter((a) => parses(a.mobile_app_metadata))
      .map((a) => ({ os: a.operating_system, meta: JSON.parse(a.mobile_app_metadata) as Json }));
    const android = parsed.find((p) => p.os === "ANDROID")?.meta;
    const ios = parsed.find((p) => p.os === "IOS")?.meta;
    expect(Object.keys(android ?? {})).toEqual(
      expect.arrayContaining(["packageName", "label", "versionCode", "minSdkVersion", "glEsVersion"]),
    );
    expect(typeof android?.versionCode).toBe("number");
    expect(ios).toMatchObject({ bundlePackageType: "APPL" });
    const labels = parsed.map((p) => String(p.meta.label ?? p.meta.bundleDisplayName));
    expect(labels.some((l) => /[^\x20-\x7e]/.test(l))).toBe(true);
    expect(labels.some((l) => l.includes("'"))).toBe(true);
    for (const app of apps()) expect(app.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it("has a plan that lists environment 7 sixteen times", () => {
    const dup = plans.filter(
      (p) => JSON.stringify(p.environments) === JSON.stringify(Array(16).fill({ id: 7 })),
    );
    expect(dup).toHaveLength(1);
  });

  it("omits period dates on some plans and uses the documented period values", () => {
    const periods = plans.map((p) => p.period as Json);
    expect(periods.some((p) => !("start_date" in p))).toBe(true);
    expect(periods.some((p) => !("end_date" in p) && "start_date" in p)).toBe(true);
    expect(periods.some((p) => p.days_of_week === "")).toBe(true);
    expect(new Set(periods.map((p) => p.period_type))).toEqual(new Set(["MANUAL", "ONCE", "REPETITIVE"]));
    expect(periods.every((p) => p.start_date === undefined || Number(p.start_date) > 1e12)).toBe(true);
  });

  it("has a resolution that is not <width>x<height>, empty descriptions and empty scenario lists", () => {
    const values = plans.flatMap((p) => Object.values((p.resolutions ?? {}) as Json));
    expect(values.some((v) => !/^\d+x\d+$/.test(String(v)))).toBe(true);
    expect(plans.some((p) => p.description === "")).toBe(true);
    expect(plans.some((p) => Array.isArray(p.scenarios) && p.scenarios.length === 0)).toBe(true);
  });

  it("puts a plan id the plan list does not return into every report", async () => {
    const ids = new Set(plans.map((p) => p.id));
    for (const reportId of sim.companies[0]!.reportIds) {
      const res = await fetch(`${sim.baseUrl}/api/scheduled-reports/scheduled/${reportId}?companyId=5251`, {
        headers: { authorization: "Bearer sim-token-5251", "current-company-id": "5251" },
      });
      const report = (await res.json()) as { plan_id_list: number[] };
      expect(report.plan_id_list.some((id) => ids.has(id))).toBe(true);
      expect(report.plan_id_list.some((id) => !ids.has(id))).toBe(true);
    }
  });

  it("generates the same bytes for the same seed and different data for another seed", async () => {
    const again = await startSimulator({ port: 0, plans: 300, reports: 4 });
    const other = await startSimulator({ port: 0, plans: 300, reports: 4, seed: 2 });
    const body = (s: RunningSimulator) => s.state.plans.get(5251)!.body();
    expect(body(again).equals(body(sim))).toBe(true);
    expect(body(other).equals(body(sim))).toBe(false);
    await Promise.all([again.close(), other.close()]);
  });
});

describe("simulator admin plan and report edits", () => {
  const admin = (path: string, init?: RequestInit) => fetch(`${sim.baseUrl}/__admin${path}`, init);
  const listIds = async () => {
    const res = await fetch(`${sim.baseUrl}/api/plans`, {
      headers: { authorization: "Bearer sim-token-5252" },
    });
    return ((await res.json()) as Json[]).map((p) => p.id);
  };

  it("stores a raw plan as given, serves it in the list, and removes it on delete", async () => {
    const cached = sim.state.plans.get(5252)!.body();
    const raw = '{"id":424242,"company_id":5252,"period":{"start_date":"not a number"}}';
    expect((await admin("/companies/5252/plans/424242", { method: "PUT", body: raw })).status).toBe(201);
    expect(await (await admin("/companies/5252/plans/424242")).text()).toBe(raw);
    expect(sim.state.plans.get(5252)!.body()).not.toBe(cached);
    expect(await listIds()).toContain(424242);
    expect((await admin("/companies/5252/plans/424242", { method: "DELETE" })).status).toBe(200);
    expect(await listIds()).not.toContain(424242);
    expect((await admin("/companies/5252/plans/424242")).status).toBe(404);
    expect((await admin("/companies/5252/plans/1", { method: "PUT", body: "{not json" })).status).toBe(400);
  });

  it("replaces and deletes a report, and creates one for a given company", async () => {
    const headers = { authorization: "Bearer sim-token-5252", "current-company-id": "5252" };
    const get = (id: number) =>
      fetch(`${sim.baseUrl}/api/scheduled-reports/scheduled/${id}?companyId=5252`, { headers });
    const reportId = sim.companies[1]!.reportIds[0]!;
    await admin(`/reports/${reportId}`, { method: "PUT", body: `{"id":${reportId},"report_name":"edited"}` });
    expect(await (await get(reportId)).json()).toMatchObject({ report_name: "edited" });
    expect((await admin(`/reports/${reportId}`, { method: "DELETE" })).status).toBe(200);
    expect((await get(reportId)).status).toBe(404);
    expect((await admin("/reports/9000", { method: "PUT", body: '{"id":9000}' })).status).toBe(400);
    expect((await admin("/reports/9000?companyId=5252", { method: "PUT", body: '{"id":9000}' })).status).toBe(
      201,
    );
    expect((await get(9000)).status).toBe(200);
    const companies = (await (await admin("/companies")).json()) as { id: number; reportIds: number[] }[];
    expect(companies.find((c) => c.id === 5252)?.reportIds).toContain(9000);
  });
});
