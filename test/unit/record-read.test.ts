import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PlanRead, type ReportRead, readPlan, readReport } from "../../src/normalize/index.js";
import { planSchema, scheduledReportSchema } from "../../src/wire/schemas.js";
import { garbage, planLike, recordText, reportLike } from "../support/wire-arbitraries.js";

const COMPANY = 5251;
// Modest: the whole unit suite stays fast. fast-check prints the seed of a failing run.
const RUNS = { numRuns: 400 };

/** What every answer must satisfy, whatever the input. */
function checkShape(r: PlanRead | ReportRead): void {
  if (r.ok) {
    expect(Number.isSafeInteger(r.id)).toBe(true);
    expect(r.wire.id).toBe(r.id);
  } else {
    expect(typeof r.reason).toBe("string");
    expect(r.reason.trim()).not.toBe("");
    expect(r.id === null || Number.isSafeInteger(r.id)).toBe(true);
  }
}

/** Accepted exactly when the wire schema accepts the parsed JSON (the normalizers reject nothing). */
function schemaAccepts(schema: typeof planSchema | typeof scheduledReportSchema, text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return schema.safeParse(value).success;
}

describe("readPlan", () => {
  it("reads a plan into its rows", () => {
    const r = readPlan(
      JSON.stringify({ id: 7, company_id: COMPANY, scenarios: [3, 4], period: { days_of_week: "2,3" } }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.id).toBe(7);
    expect(r.wire.company_id).toBe(COMPANY);
    expect(r.normalized.plan).toMatchObject({ id: 7, companyId: COMPANY });
    expect(r.normalized.scenarios.map((s) => s.scenarioId)).toEqual([3, 4]);
    expect(r.normalized.days.map((d) => d.dayName)).toEqual(["MONDAY", "TUESDAY"]);
  });

  it.each([
    ["{not json", null, /^invalid JSON: /],
    ["null", null, /^\(record\): /],
    ["[1,2]", null, /^\(record\): /],
    ['{"id": 9}', 9, /^company_id: /],
    ['{"id": "9", "company_id": 1}', null, /^id: /],
    ['{"id": 9.5, "company_id": 1}', null, /^id: /],
    ['{"id": 1e400, "company_id": 1}', null, /^id: /],
    ['{"id": 9, "company_id": 1, "scenarios": "1,2"}', 9, /^scenarios: /],
  ])("rejects %s with id %s and a reason", (text, id, reason) => {
    const r = readPlan(text);
    expect(r).toMatchObject({ ok: false, id });
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it("names at most five problems and counts the rest", () => {
    const bad = Object.fromEntries(
      ["project_id", "plan_name", "enabled", "scenarios", "group_plan", "alerts", "video_enabled"].map(
        (k) => [k, { wrong: true }],
      ),
    );
    const r = readPlan(JSON.stringify({ id: 1, company_id: 1, ...bad }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason.split("; ")).toHaveLength(5);
      expect(r.reason).toMatch(/\(\+2 more\)$/);
    }
  });

  it("rejects a record nested too deeply to keep, naming where, instead of throwing", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const r = readPlan(`{"id": 3, "company_id": 1, "alerts": [${deep}]}`);
    expect(r).toMatchObject({ ok: false, id: 3 });
    if (!r.ok) expect(r.reason).toBe("alerts.0: nested more than 64 levels deep");
  });

  it("never throws on plan-shaped values, and accepts exactly what the wire schema accepts", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(recordText(planLike), (text) => {
        const r = readPlan(text);
        checkShape(r);
        expect(r.ok).toBe(schemaAccepts(planSchema, text));
        if (r.ok) {
          accepted++;
          const n = r.normalized;
          const children = [...n.days, ...n.resolutions, ...n.environments, ...n.scenarios, ...n.alerts];
          expect(children.every((row) => row.planId === r.id)).toBe(true);
        } else rejected++;
      }),
      RUNS,
    );
    // The arbitraries must reach both outcomes, or the property proves little.
    expect(accepted).toBeGreaterThan(10);
    expect(rejected).toBeGreaterThan(10);
  });

  it("never throws on any JSON text or any string at all", () => {
    fc.assert(
      fc.property(fc.oneof(recordText(garbage), fc.string({ unit: "binary" })), (text) => {
        checkShape(readPlan(text));
      }),
      RUNS,
    );
  });
});

describe("readReport", () => {
  it("reads a report for the company it was fetched for", () => {
    const r = readReport(
      JSON.stringify({ id: 132, plan_id_list: [1, 1, 2], report_hour: "2025-02-06T12:51:07Z" }),
      COMPANY,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.normalized.report).toMatchObject({
      id: 132,
      companyId: COMPANY,
      reportHour: "2025-02-06T12:51:07.000Z",
    });
    expect(r.normalized.planIds).toEqual([1, 2]);
  });

  it.each([
    ["<html><body>Login</body></html>", null, /^invalid JSON: /],
    ["", null, /^invalid JSON: /],
    ["{}", null, /^id: /],
    ['{"id": 5, "email_list": [1]}', 5, /^email_list\.0: /],
    ['{"id": 5, "alerts": [{"enabled": "yes"}]}', 5, /^alerts\.0\.enabled: /],
  ])("rejects %j with id %s and a reason", (text, id, reason) => {
    const r = readReport(text, COMPANY);
    expect(r).toMatchObject({ ok: false, id });
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it("never throws on report-shaped values, and accepts exactly what the wire schema accepts", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(recordText(reportLike), fc.integer({ min: 1, max: 2 ** 31 }), (text, companyId) => {
        const r = readReport(text, companyId);
        checkShape(r);
        expect(r.ok).toBe(schemaAccepts(scheduledReportSchema, text));
        if (r.ok) {
          accepted++;
          expect(r.normalized.report.companyId).toBe(companyId);
          expect(r.normalized.alerts.every((a) => a.reportId === r.id)).toBe(true);
        } else rejected++;
      }),
      RUNS,
    );
    expect(accepted).toBeGreaterThan(10);
    expect(rejected).toBeGreaterThan(10);
  });

  it("never throws on any JSON text or any string at all", () => {
    fc.assert(
      fc.property(fc.oneof(recordText(garbage), fc.string({ unit: "binary" })), (text) => {
        checkShape(readReport(text, COMPANY));
      }),
      RUNS,
    );
  });
});
