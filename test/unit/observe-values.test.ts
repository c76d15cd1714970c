/** Which paths keep their values and raise value changes (pure): enumerations speak, free text never. */
import { describe, expect, it } from "vitest";
import { Observation } from "../../src/observed/observation.js";
import type { ObservedPath } from "../../src/observed/port.js";
import { settle } from "../../src/observed/settle.js";
import { fewValues, valuePolicy } from "../../src/observed/values.js";

describe("valuePolicy", () => {
  it.each([
    ["plan", "screen_shot_type", "enum"],
    ["period", "period_type", "enum"],
    ["scheduled_report", "status[]", "enum"],
    ["report_alert", "alert_sending_status", "enum"],
    ["plan", "plan_name", "free"],
    ["plan", "description", "free"],
    ["mobile_app", "mobile_app_hash", "free"],
    ["mobile_app", "mobile_app_metadata", "free"],
    ["scheduled_report", "email_list[]", "free"],
    ["scheduled_report", "created_user", "free"],
    ["report_alert", "target", "free"],
    ["resolutions", "WIN10", "free"],
    ["mobile_app_metadata:ANDROID", "minSdkVersion", "free"],
    ["mobile_app_metadata:WINDOWS", "anything", "free"],
    ["plan_alert", "target", "free"],
    ["plan", "ownerEmail", "free"],
    ["plan", "build_hash", "free"],
    ["plan", "labels[]", "watch"],
    ["plan_alert", "alert_type", "watch"],
    ["plan", "tier", "watch"],
  ])("%s.%s is %s", (entity, path, policy) => {
    expect(valuePolicy(entity, path)).toBe(policy);
  });

  it.each([
    [{ valuesCapped: false, values: ["a"], types: { string: 3 } }, true],
    [{ valuesCapped: false, values: ["a", "b"], types: { string: 5 } }, false],
    [{ valuesCapped: true, values: [], types: { string: 300 } }, false],
    [
      { valuesCapped: false, values: Array.from({ length: 21 }, (_, i) => i), types: { string: 1000 } },
      false,
    ],
  ])("fewValues(%j) is %s", (p, few) => {
    expect(fewValues(p)).toBe(few);
  });
});

const CTX = {
  companyId: 1,
  runId: 2,
  at: "2025-01-02T00:00:00.000Z",
  valueCap: 50,
  plansListed: true,
  baseline: false,
};

/** What a run that saw `before` replaced by `after` (plans by id) records. */
function changesOf(before: Record<string, unknown>[], after: Record<string, unknown>[]) {
  const first = new Observation(50);
  for (const [i, p] of before.entries()) first.record("plan", p, 1, i);
  const known: ObservedPath[] = settle([], first, { ...CTX, runId: 1, baseline: true }).paths;
  const run = new Observation(50);
  for (const [i, p] of before.entries()) run.record("plan", p, -1, i);
  for (const [i, p] of after.entries()) run.record("plan", p, 1, i);
  return settle(known, run, CTX).changes.map((c) => `${c.kind} ${c.path} ${c.before ?? ""}>${c.after ?? ""}`);
}

describe("settling a run", () => {
  const plan = (i: number, extra: Record<string, unknown> = {}) => ({
    id: i,
    plan_name: `Plan ${i}`,
    description: "",
    screen_shot_type: "YES",
    ...extra,
  });

  it("records nothing for a hundred plans renamed", () => {
    const before = Array.from({ length: 100 }, (_, i) => plan(i));
    const after = before.map((p) => ({ ...p, plan_name: `${p.plan_name} (renamed)`, description: "new" }));
    expect(changesOf(before, after)).toEqual([]);
  });

  it("records nothing for plans deleted, as long as another holds each enumeration value", () => {
    const before = Array.from({ length: 100 }, (_, i) => plan(i));
    expect(changesOf(before, before.slice(0, 3))).toEqual([]);
  });

  it("records a documented enumeration's new value and one it lost", () => {
    const before = [plan(1), plan(2, { screen_shot_type: "NO" })];
    const after = [plan(1, { screen_shot_type: "ON_FAILURE_ONLY" }), plan(2)];
    expect(changesOf(before, after)).toEqual([
      "new_value screen_shot_type >ON_FAILURE_ONLY",
      "value_gone screen_shot_type NO>",
    ]);
  });

  it("lets a new path's values speak while they stay few, and not once they look like free text", () => {
    const few = Array.from({ length: 9 }, (_, i) => plan(i, { tier: "gold" }));
    expect(
      changesOf(
        few,
        few.map((p, i) => (i === 0 ? { ...p, tier: "silver" } : p)),
      ),
    ).toEqual(["new_value tier >silver"]);
    const unique = Array.from({ length: 9 }, (_, i) => plan(i, { motto: `motto ${i}` }));
    expect(
      changesOf(
        unique,
        unique.map((p, i) => (i === 0 ? { ...p, motto: "another" } : p)),
      ),
    ).toEqual([]);
  });
});
