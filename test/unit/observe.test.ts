/** The observer: a pure fold of records into paths, types, values; settling it against what was known; contracts. */
import { describe, expect, it } from "vitest";
import { AcceptedSchema } from "../../src/observed/contract.js";
import { Observation } from "../../src/observed/observation.js";
import { settle, typesText } from "../../src/observed/settle.js";
import type { ObservedPath } from "../../src/observed/types.js";

const CTX = {
  companyId: 1,
  runId: 7,
  at: "2026-01-01T00:00:00.000Z",
  valueCap: 3,
  plansListed: true,
  baseline: false,
};

const plan = (over: Record<string, unknown> = {}) => ({
  id: 1,
  company_id: 1,
  screen_shot_type: "YES",
  period: { period_type: "MANUAL", start_date: 5 },
  environments: [{ id: 7 }, { id: 7 }],
  resolutions: { WIN10: "1024x768" },
  alerts: [{ target: "a@x", extra: { deep: [1, 2] } }],
  selected_android_mobile_app: {
    id: 3,
    operating_system: "ANDROID",
    mobile_app_metadata: JSON.stringify({ packageName: "p", versionCode: 12 }),
  },
  ...over,
});

function rows(obs: Observation, known: ObservedPath[] = [], ctx = CTX) {
  const w = settle(known, obs, ctx);
  return { write: w, byPath: new Map(w.paths.map((p) => [`${p.entity} ${p.path}`, p])) };
}

describe("an observation", () => {
  it("places each value in its entity and path, with its type", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), 1, 1);
    const { byPath } = rows(obs);
    const types = (k: string) => typesText(byPath.get(k)?.types ?? {});
    expect(types("plan ")).toBe("object");
    expect(types("plan screen_shot_type")).toBe("string");
    expect(types("plan period")).toBe("object");
    expect(types("period start_date")).toBe("integer");
    expect(byPath.get("environment ")?.present).toBe(2);
    expect(types("environment id")).toBe("integer");
    expect(types("resolutions WIN10")).toBe("string");
    expect(types("plan_alert extra.deep")).toBe("array");
    expect(byPath.get("plan_alert extra.deep[]")?.types.integer).toBe(2);
    expect(types("mobile_app operating_system")).toBe("string");
    expect(types("mobile_app_metadata:ANDROID versionCode")).toBe("integer");
    expect(byPath.get("mobile_app_metadata:ANDROID versionCode")).toMatchObject({
      minNumber: 12,
      maxNumber: 12,
    });
    expect(byPath.get("plan screen_shot_type")?.values).toEqual([{ value: "YES", count: 1 }]);
  });

  it.for(["__proto__", "constructor", "prototype", "toString"])(
    "observes a key named %s as a path like any other, and a contract judges it without throwing",
    (key) => {
      const k = JSON.stringify(key);
      const record = JSON.parse(
        `{"id":1,"company_id":1,${k}:{"a":1},"period":{${k}:2},"resolutions":{${k}:"1x1"},"selected_android_mobile_app":{"id":3,${k}:"x","mobile_app_metadata":"{${JSON.stringify(k).slice(1, -1)}:true}"}}`,
      ) as Record<string, unknown>;
      const obs = new Observation(50);
      obs.record("plan", record, 1, 1);
      const { byPath } = rows(obs);
      const types = (p: string) => typesText(byPath.get(p)?.types ?? {});
      expect(types(`plan ${key}`)).toBe("object");
      expect(types(`plan ${key}.a`)).toBe("integer");
      expect(types(`period ${key}`)).toBe("integer");
      expect(types(`resolutions ${key}`)).toBe("string");
      expect(types(`mobile_app ${key}`)).toBe("string");
      expect(types(`mobile_app_metadata:ANDROID ${key}`)).toBe("boolean");
      // Only the entities of a plan: the key led nowhere else.
      expect(new Set([...byPath.keys()].map((p) => p.split(" ")[0]))).toEqual(
        new Set(["plan", "period", "resolutions", "mobile_app", "mobile_app_metadata:ANDROID"]),
      );
      const contract = new AcceptedSchema([], []);
      expect(contract.accepts("plan", key, "object")).toBe(false);
      expect(contract.refusal(obs.walk("plan", record))).toContain(`plan.${key}: object`);
      expect(({} as Record<string, unknown>).a).toBeUndefined();
    },
  );

  it("takes a record back: +1 then -1 leaves every count where it was", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), 1, 1);
    obs.record("plan", plan(), -1, 1);
    expect(obs.nodes.every((n) => n.present === 0 && n.types.every((t) => t === 0))).toBe(true);
  });

  it("stops listing values past the cap, and past 100 characters", () => {
    const obs = new Observation(3);
    for (const v of ["a", "b", "c", "d"]) obs.record("plan", plan({ screen_shot_type: v }), 1, 1);
    obs.record("plan", plan({ screen_shot_type: "a", plan_name: "x".repeat(101) }), 1, 2);
    const { byPath } = rows(obs);
    expect(byPath.get("plan screen_shot_type")).toMatchObject({ valuesCapped: true, values: [], present: 5 });
    expect(byPath.get("plan plan_name")).toMatchObject({ valuesCapped: true, values: [] });
  });
});

describe("settling an observation against what was known", () => {
  const known = (): ObservedPath[] => {
    const obs = new Observation(50);
    obs.record("plan", plan(), 1, 1);
    return rows(obs, [], { ...CTX, baseline: true }).write.paths;
  };

  it("writes no change row on the baseline, and none when nothing differs", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), 1, 1);
    expect(rows(obs, [], { ...CTX, baseline: true }).write.changes).toEqual([]);
    const again = new Observation(50);
    again.record("plan", plan(), -1, 1);
    again.record("plan", plan(), 1, 1);
    expect(rows(again, known()).write.changes).toEqual([]);
  });

  it("moves only the last sighting of a path a changed record carries as before, and keeps values that did not move", () => {
    const before = known().map((p) => ({ ...p, lastRunId: 6, lastSeenAt: "2025-12-31T00:00:00.000Z" }));
    const again = new Observation(50);
    again.record("plan", plan(), -1, 1);
    again.record("plan", plan({ period: { period_type: "MANUAL", start_date: 9 } }), 1, 1);
    const { write } = rows(again, before, { ...CTX, valueCap: 50 });
    // The start date's range moved: that path is written, its values (none) kept.
    expect(write.paths.map((p) => `${p.entity} ${p.path}`)).toEqual(["period start_date"]);
    expect(write.paths[0]).toMatchObject({ maxNumber: 9, lastRunId: 7, valuesKept: true });
    // The others only saw the run again.
    const seen = (write.seen ?? []).map((p) => `${p.entity} ${p.path}`);
    expect(seen).toContain("plan screen_shot_type");
    expect(seen).toContain("mobile_app_metadata:ANDROID versionCode");
    expect(seen).not.toContain("period start_date");
    expect(seen.length + write.paths.length).toBe(again.nodes.length);
    // A value that moves rewrites the path's values.
    const changed = new Observation(50);
    changed.record("plan", plan(), -1, 1);
    changed.record("plan", plan({ screen_shot_type: "NO" }), 1, 1);
    const other = rows(changed, before, { ...CTX, valueCap: 50 }).byPath.get("plan screen_shot_type");
    expect(other?.values).toEqual([{ value: "NO", count: 1 }]);
    expect(other?.valuesKept).toBeUndefined();
  });

  it("finds a new path, a new value, a type change, and names an example record", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), -1, 1);
    obs.record(
      "plan",
      plan({
        labels: ["nightly"],
        screen_shot_type: "ON_FAILURE_ONLY",
        selected_android_mobile_app: {
          id: 3,
          operating_system: "ANDROID",
          mobile_app_metadata: JSON.stringify({ packageName: "p", versionCode: "12" }),
        },
      }),
      1,
      9,
    );
    const { changes } = rows(obs, known()).write;
    expect(changes).toEqual(
      expect.arrayContaining([
        { entity: "plan", path: "labels", kind: "added", before: null, after: "array", exampleId: 9 },
        { entity: "plan", path: "labels[]", kind: "added", before: null, after: "string", exampleId: 9 },
        {
          entity: "plan",
          path: "screen_shot_type",
          kind: "new_value",
          before: null,
          after: "ON_FAILURE_ONLY",
          exampleId: 9,
        },
        {
          entity: "plan",
          path: "screen_shot_type",
          kind: "value_gone",
          before: "YES",
          after: null,
          exampleId: null,
        },
        {
          entity: "mobile_app_metadata:ANDROID",
          path: "versionCode",
          kind: "type_changed",
          before: "integer",
          after: "string",
          exampleId: 9,
        },
      ]),
    );
    expect(changes).toHaveLength(5);
  });

  it("says a plan path is removed only after a complete list", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), -1, 1);
    const { resolutions: _, ...without } = plan();
    obs.record("plan", without, 1, 1);
    const complete = rows(obs, known()).write.changes.filter((c) => c.kind === "removed");
    expect(complete.map((c) => `${c.entity} ${c.path}`).sort()).toEqual([
      "plan resolutions",
      "resolutions ",
      "resolutions WIN10",
    ]);
    expect(
      rows(obs, known(), { ...CTX, plansListed: false }).write.changes.filter((c) => c.kind === "removed"),
    ).toEqual([]);
  });
});

describe("the accepted schema", () => {
  it("accepts the documented fields, what was observed, and what open changes did not bring in", () => {
    const obs = new Observation(50);
    obs.record("plan", plan({ labels: ["x"] }), 1, 1);
    const knownRows = rows(obs, [], { ...CTX, baseline: true }).write.paths;
    const open = [
      {
        entity: "plan",
        path: "labels",
        kind: "added" as const,
        before: null,
        after: "array",
        acknowledgedAt: null,
      },
      {
        entity: "plan",
        path: "nick2",
        kind: "added" as const,
        before: null,
        after: "string",
        acknowledgedAt: "2026-01-02",
      },
    ];
    const accepted = new AcceptedSchema(knownRows, open);
    expect(accepted.accepts("plan", "plan_name", "string")).toBe(true); // documented
    expect(accepted.accepts("plan_alert", "target", "string")).toBe(true); // observed
    expect(accepted.accepts("plan", "labels", "array")).toBe(false); // only an open change says it
    expect(accepted.accepts("plan", "nick2", "string")).toBe(true); // acknowledged, though nothing holds it
    expect(accepted.accepts("plan", "plan_name", "integer")).toBe(false);
    const touches = new Observation(50).walk("plan", plan({ labels: ["x"], nick: 5 }));
    expect(accepted.refusal(touches)).toBe(
      "outside the accepted schema (contract freeze): plan.labels: array an array; plan.nick: integer 5",
    );
  });

  it("strips what is outside it from the JSON the columns keep, leaving the rest (and the plan) as they were", () => {
    const obs = new Observation(50);
    obs.record("plan", plan(), 1, 1);
    const accepted = new AcceptedSchema(rows(obs, [], { ...CTX, baseline: true }).write.paths, []);
    const same = plan();
    expect(accepted.stripPlan(same)).toBe(same);
    const more = plan({
      alerts: [{ target: "b", unknown: 1, extra: { deep: [3], other: true } }],
      selected_android_mobile_app: {
        id: 3,
        mobile_app_metadata: JSON.stringify({ packageName: "q", fresh: "x" }),
      },
    });
    const stripped = accepted.stripPlan(more);
    expect(stripped.alerts).toEqual([{ target: "b", extra: { deep: [3] } }]);
    expect(
      JSON.parse(
        (stripped.selected_android_mobile_app as { mobile_app_metadata: string }).mobile_app_metadata,
      ),
    ).toEqual({
      packageName: "q",
    });
    expect(more.alerts).toEqual([{ target: "b", unknown: 1, extra: { deep: [3], other: true } }]);
  });
});
