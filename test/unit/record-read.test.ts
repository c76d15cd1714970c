/**
 * The one reader of the service's records. Examples, then stated properties over hostile
 * arbitraries: any input gives a record or a rejection (never a throw); an accepted record's
 * rows follow it; nothing is rounded; key order, whitespace and unknown fields change nothing;
 * a wrong type is rejected naming its path; every stored string is well-formed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PlanRead, type ReportRead, readPlan, readReport } from "../../src/normalize/read.js";
import { garbage, planLike, recordText, reportLike, weirdString } from "../support/wire-arbitraries.js";

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

type Json = Record<string, unknown>;

/** Every string in the rows (values of row objects and of lists of strings), and whether all are well-formed. */
function allWellFormed(rows: object): boolean {
  const stack: unknown[] = [rows];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v === "string" && !v.isWellFormed()) return false;
    if (typeof v === "object" && v !== null) stack.push(...Object.values(v));
  }
  return true;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Rows of an accepted plan, held against the record they came from. */
function checkPlanRows(r: Extract<PlanRead, { ok: true }>, v: Json): void {
  const n = r.normalized;
  expect(r.id).toBe(v.id);
  expect(n.plan.companyId).toBe(v.company_id);
  const children = [
    ...n.days,
    ...n.resolutions,
    ...n.environments,
    ...n.scenarios,
    ...n.alerts,
    ...n.fetchAppFiles,
    ...n.planMobileApps,
  ];
  expect(children.every((row) => row.planId === r.id)).toBe(true);
  const list = (k: string) => (Array.isArray(v[k]) ? (v[k] as unknown[]) : []);
  expect(n.scenarios.map((s) => s.scenarioId)).toEqual(list("scenarios"));
  expect(n.scenarios.map((s) => s.position)).toEqual(list("scenarios").map((_, i) => i));
  expect(n.alerts).toHaveLength(list("alerts").length);
  expect(n.fetchAppFiles).toHaveLength(list("fetch_app_files").length);
  const envIds = list("environments").map((e) => (e as { id: number }).id);
  expect(n.environments.reduce((a, e) => a + e.occurrences, 0)).toBe(envIds.length);
  expect(n.environments.map((e) => e.environmentId)).toEqual([...new Set(envIds)]);
  const resolutions = v.resolutions && typeof v.resolutions === "object" ? Object.keys(v.resolutions) : [];
  expect(n.resolutions.map((x) => x.os).sort()).toEqual(resolutions.map((k) => k.toWellFormed()).sort());
  const days = n.days.map((d) => d.dayNumber);
  expect(days.every((d, i) => d >= 1 && d <= 7 && (i === 0 || d > (days[i - 1] as number)))).toBe(true);
  for (const t of [n.plan.periodStartAt, n.plan.periodEndAt, n.plan.periodOnceAt])
    expect(t === null || ISO.test(t as string)).toBe(true);
  expect(allWellFormed(n)).toBe(true);
}

/** Known fields and a value of the wrong type for each: set on an accepted plan, it is rejected naming the path. */
const WRONG: [path: string, set: (v: Json) => void][] = [
  ["id", (v) => (v.id = "7")],
  ["company_id", (v) => (v.company_id = 1.5)],
  ["plan_name", (v) => (v.plan_name = 3)],
  ["enabled", (v) => (v.enabled = "yes")],
  ["scenarios", (v) => (v.scenarios = "1,2")],
  ["scenarios.0", (v) => (v.scenarios = ["x"])],
  ["period.start_date", (v) => (v.period = { start_date: "2020-01-01" })],
  ["period", (v) => (v.period = [])],
  ["environments.0.id", (v) => (v.environments = [{ id: null }])],
  ["resolutions.WIN10", (v) => (v.resolutions = { WIN10: 1024 })],
  ["selected_ios_mobile_app.id", (v) => (v.selected_ios_mobile_app = { operating_system: "IOS" })],
  ["alerts", (v) => (v.alerts = {})],
];

/** Serializes `v` with its keys in another order and with whitespace (the same JSON value). */
function reshuffled(v: unknown, seed: number): string {
  const shuffle = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(shuffle);
    if (x === null || typeof x !== "object") return x;
    const keys = Object.keys(x);
    const rotated = keys.map((_, i) => keys[(i + seed) % keys.length] as string);
    return Object.fromEntries(rotated.map((k) => [k, shuffle((x as Json)[k])]));
  };
  return JSON.stringify(shuffle(v), null, 1 + (seed % 3));
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

  it("never throws: any JSON text, any string, any bytes give a record or a rejection", () => {
    fc.assert(
      fc.property(
        fc.oneof(recordText(planLike), recordText(garbage), fc.string({ unit: "binary" })),
        fc.boolean(),
        (text, asBytes) => {
          checkShape(readPlan(asBytes ? Buffer.from(text) : text));
        },
      ),
      RUNS,
    );
  });

  it("builds rows that follow the plan: ids, lists, counts, days, timestamps, well-formed strings", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(planLike, (v) => {
        const r = readPlan(JSON.stringify(v));
        checkShape(r);
        if (!r.ok) {
          rejected++;
          return;
        }
        accepted++;
        checkPlanRows(r, JSON.parse(JSON.stringify(v)) as Json);
      }),
      RUNS,
    );
    // The arbitraries must reach both outcomes, or the property proves little.
    expect(accepted).toBeGreaterThan(20);
    expect(rejected).toBeGreaterThan(20);
  });

  it("never rounds an id: one past 2^53 is rejected, and the rejection carries no id", () => {
    fc.assert(
      fc.property(planLike, fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }), (v, big) => {
        // The id first: the first "id" of the text is the plan's own.
        const { id: _, ...rest } = v;
        const text = JSON.stringify({ id: 0, ...rest }).replace('"id":0', `"id":${big}`);
        const r = readPlan(text);
        expect(r).toMatchObject({ ok: false, id: null });
        if (!r.ok) expect(r.reason).toMatch(/^(id: an integer beyond 2\^53|invalid JSON|.*\bid\b)/);
      }),
      RUNS,
    );
  });

  it("reads the same rows whatever the key order, the whitespace and the unknown fields", () => {
    fc.assert(
      fc.property(
        planLike,
        fc.nat(),
        fc.dictionary(weirdString, garbage, { maxKeys: 3 }),
        (v, seed, extra) => {
          const plain = readPlan(JSON.stringify(v));
          if (!plain.ok) return;
          const unknown = Object.fromEntries(Object.entries(extra).map(([k, x]) => [`x_${k}`, x]));
          const other = readPlan(reshuffled({ ...unknown, ...v }, seed));
          expect(other.ok).toBe(true);
          // Items kept as JSON text keep their own key order: compared as values.
          const asValues = (n: typeof plain.normalized) => ({
            ...n,
            alerts: n.alerts.map((a) => ({ ...a, json: JSON.parse(a.json) })),
            fetchAppFiles: n.fetchAppFiles.map((a) => ({ ...a, json: JSON.parse(a.json) })),
          });
          if (other.ok) expect(asValues(other.normalized)).toEqual(asValues(plain.normalized));
        },
      ),
      RUNS,
    );
  });

  it("rejects a known field of the wrong type, naming its path", () => {
    fc.assert(
      fc.property(planLike, fc.constantFrom(...WRONG), (v, [path, set]) => {
        if (!readPlan(JSON.stringify(v)).ok) return;
        const bad = JSON.parse(JSON.stringify(v)) as Json;
        set(bad);
        const r = readPlan(JSON.stringify(bad));
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.reason.split("; ").some((issue) => issue.startsWith(`${path}: `))).toBe(true);
      }),
      RUNS,
    );
  });

  it("replaces lone surrogates by U+FFFD in every stored string, and only those", () => {
    const r = readPlan(
      JSON.stringify({
        id: 1,
        company_id: 2,
        plan_name: "a\ud800b \ud83d\ude00",
        resolutions: { "W\udc00": "1x1" },
        selected_android_mobile_app: { id: 3, mobile_app_metadata: JSON.stringify({ label: "x\udfff" }) },
      }).replace(/\\\\u/g, "\\u"),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.normalized.plan.planName).toBe("a\ufffdb \ud83d\ude00");
    expect(r.normalized.resolutions[0]?.os).toBe("W\ufffd");
    expect(r.normalized.mobileApps[0]?.displayName).toBe("x\ufffd");
    expect(allWellFormed(r.normalized)).toBe(true);
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

  it("builds rows that follow the report, for the company it was fetched for", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(recordText(reportLike), fc.integer({ min: 1, max: 2 ** 31 }), (text, companyId) => {
        const r = readReport(text, companyId);
        checkShape(r);
        if (!r.ok) {
          rejected++;
          return;
        }
        accepted++;
        const v = JSON.parse(text) as Json;
        // Lists of strings come back well-formed (lone surrogates replaced).
        const list = (k: string) =>
          (Array.isArray(v[k]) ? (v[k] as unknown[]) : []).map((x) =>
            typeof x === "string" ? x.toWellFormed() : x,
          );
        expect(r.normalized.report.companyId).toBe(companyId);
        expect(r.normalized.planIds).toEqual([...new Set(list("plan_id_list"))]);
        expect(r.normalized.recipients).toEqual([...new Set(list("email_list"))]);
        expect(r.normalized.alerts.map((a) => a.position)).toEqual(list("alerts").map((_, i) => i));
        expect(r.normalized.alerts.every((a) => a.reportId === r.id)).toBe(true);
        expect(allWellFormed(r.normalized)).toBe(true);
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

describe("lone surrogates that meet", () => {
  it("keeps one row when two keys become the same after U+FFFD replaces them (no duplicate key to fail the store)", () => {
    const r = readPlan('{"id":1,"company_id":2,"resolutions":{"\\ud800":"1x1","\\udc00":"2x2","W":"3x3"}}');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.normalized.resolutions.map((x) => x.os).sort()).toEqual(["W", "\ufffd"]);
    const report = readReport('{"id":5,"email_list":["\\ud800","\\udbff"],"status":["\\ud800","\ufffd"]}', 1);
    expect(report.ok).toBe(true);
    if (report.ok) {
      expect(report.normalized.recipients).toEqual(["\ufffd"]);
      expect(report.normalized.statuses).toEqual(["\ufffd"]);
    }
  });
});
