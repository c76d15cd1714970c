import { describe, expect, it } from "vitest";
import { Observation } from "../../src/observed/observation.js";
import { observationFromState, observationState } from "../../src/observed/observation-state.js";

/** Plans of many shapes: nested objects and lists, values past the cap, an empty key, metadata. */
const plan = (i: number): Record<string, unknown> => ({
  id: i,
  company_id: 1,
  plan_name: `plan ${i % 7}`,
  enabled: i % 2 === 0,
  "": i % 3 === 0 ? "empty key" : null,
  scenarios: [i, i + 1],
  period: { days_of_week: `${i % 7}`, start: i * 1000, extra: { deep: [{ k: i % 4 }] } },
  ...(i % 5 === 0 ? { new_field: i % 10 === 0 ? "text" : 12.5 } : {}),
  selected_android_mobile_app: {
    id: i,
    mobile_app_metadata: JSON.stringify({ version: `1.${i % 6}`, sdk: i }),
  },
});

describe("an observation as plain data", () => {
  it("carries on where it was left: counting on from its state gives what counting on from it gives", () => {
    const a = new Observation(3);
    for (let i = 0; i < 40; i++) a.record("plan", plan(i), 1, i);
    a.record("plan", plan(3), -1, 3);
    const state = observationState(a);
    // Through a structured clone, as a worker thread gets it.
    const b = observationFromState(3, structuredClone(state));
    expect(observationState(b)).toEqual(state);
    for (let i = 40; i < 90; i++) {
      a.record("plan", plan(i), 1, i);
      b.record("plan", plan(i), 1, i);
    }
    a.record("plan", plan(50), -1, 50);
    b.record("plan", plan(50), -1, 50);
    expect(b.nodes.length).toBe(a.nodes.length);
    expect(observationState(b)).toEqual(observationState(a));
    expect(state.nodes.some((n) => n.values === null)).toBe(true);
    expect(state.nodes.some((n) => n.parent >= 0 && n.path === "")).toBe(true);
  });
});
