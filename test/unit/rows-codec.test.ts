import { describe, expect, it } from "vitest";
import { RowsDecoder, RowsEncoder } from "../../src/sync/rows-codec.js";
import type { PlanRowSet } from "../../src/tables/index.js";

const rowSet = (plan: Record<string, unknown>, scenarios: Record<string, unknown>[] = []) =>
  ({
    plan,
    days: [],
    resolutions: [],
    environments: [],
    scenarios,
    alerts: [],
    fetchAppFiles: [],
    mobileApps: [],
    planMobileApps: [],
  }) as unknown as PlanRowSet;

/** Encodes, says each new shape to a decoder as the file would, and decodes. */
function roundTrip(sets: PlanRowSet[]): PlanRowSet[] {
  const decoder = new RowsDecoder();
  const said: number[] = [];
  const encoder = new RowsEncoder((id, keys) => {
    said.push(id);
    decoder.shape(id, JSON.parse(JSON.stringify(keys)));
  });
  const out = sets.map((s, i) => decoder.decode(JSON.parse(encoder.encode(s, `h${i}`))));
  out.forEach((o, i) => {
    expect(o.hash).toBe(`h${i}`);
  });
  expect(new Set(said).size).toBe(said.length);
  return out.map((o) => o.rows);
}

describe("plan rows as arrays", () => {
  it("gives back the rows of every shape, each shape said once, null for undefined", () => {
    const sets = [
      rowSet({ id: 1, name: "a", enabled: true }, [{ planId: 1, scenarioId: 2, position: 0 }]),
      rowSet({ id: 2, name: null, enabled: false }, [{ planId: 2, position: 0, scenarioId: 3 }]),
      rowSet({ id: 3, name: "c", enabled: true, extra: { deep: [1, "é"] } }),
      rowSet({ id: 4, name: undefined, enabled: true }),
    ];
    const back = roundTrip(sets);
    expect(back.slice(0, 3)).toEqual(sets.slice(0, 3));
    expect(back[3]?.plan).toEqual({ id: 4, name: null, enabled: true });
    // Keys keep their order (the row's own).
    expect(Object.keys(back[1]?.scenarios[0] ?? {})).toEqual(["planId", "position", "scenarioId"]);
  });

  it("keeps keys that are no identifiers, __proto__ among them, as own data", () => {
    const odd = JSON.parse('{"__proto__": 5, "a-b": 1, "": 2}') as Record<string, unknown>;
    const [back] = roundTrip([rowSet(odd)]);
    expect(Object.getPrototypeOf(back?.plan)).toBe(Object.prototype);
    expect(Object.entries(back?.plan ?? {})).toEqual([
      ["__proto__", 5],
      ["a-b", 1],
      ["", 2],
    ]);
  });

  it("refuses a row whose shape was never said", () => {
    expect(() => new RowsDecoder().decode(["h", [0, 1]])).toThrow(/row shape 0 before saying it/);
  });
});
