import { describe, expect, it } from "vitest";
import { ValueReader, ValueWriter } from "../../src/sync/row-values.js";
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
  // Each set's bytes at an offset inside a larger buffer, as the file's reader hands them over.
  const out = sets.map((s, i) => {
    const bytes = encoder.encode(s, `h${i}`);
    const inside = Buffer.concat([Buffer.from("xyz"), bytes, Buffer.from("tail")]);
    return decoder.decode(inside, 3);
  });
  out.forEach((o, i) => {
    expect(o.hash).toBe(`h${i}`);
  });
  expect(new Set(said).size).toBe(said.length);
  return out.map((o) => o.rows);
}

describe("plan rows in bytes", () => {
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

  it("says the operation when it is not plan.write", () => {
    const decoder = new RowsDecoder();
    const encoder = new RowsEncoder((id, keys) => decoder.shape(id, keys));
    const set = rowSet({ id: 1 });
    expect(decoder.decode(encoder.encode(set, "h"), 0).op).toBe("plan.write");
    expect(decoder.decode(encoder.encode(set, "h", "plan.update"), 0).op).toBe("plan.update");
  });

  it("refuses a row whose shape was never said, and bytes that are no plan rows", () => {
    const encoder = new RowsEncoder(() => {});
    const bytes = encoder.encode(rowSet({ id: 1 }), "h");
    expect(() => new RowsDecoder().decode(bytes, 0)).toThrow(/row shape 0 before saying it/);
    expect(() => new RowsDecoder().decode(Buffer.from('["h"]'), 0)).toThrow(/without their mark/);
  });
});

describe("row values in bytes", () => {
  const roundTripValues = (values: unknown[]): unknown[] => {
    const w = new ValueWriter();
    // Written after a few bytes, and read from a copy of exactly the bytes written.
    w.need(3);
    w.at = 3;
    for (const v of values) w.value(v);
    const r = new ValueReader();
    r.reset(Buffer.from(w.buf.subarray(0, w.at)), 3);
    const back = values.map(() => r.value());
    expect(r.at).toBe(w.at);
    return back;
  };

  it("gives back numbers as they were, -0, NaN and the infinities included", () => {
    const numbers = [
      0,
      -0,
      1,
      -1,
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 53 + 2,
      0.1,
      -1.5e-300,
    ];
    const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_VALUE];
    const back = roundTripValues([...numbers, ...special]);
    back.forEach((v, i) => {
      expect(Object.is(v, [...numbers, ...special][i])).toBe(true);
    });
  });

  it("gives back strings of every kind: empty, ASCII at and past the short limit, UTF-8, lone surrogates", () => {
    const strings = [
      "",
      "a",
      "x".repeat(64),
      "y".repeat(65),
      "z".repeat(300),
      "\u0000\u007f",
      "Müşteri kabul testleri",
      "夜間回帰テスト 1",
      "emoji 😀 end",
      `${"a".repeat(63)}é`,
      "lone \ud800 high",
      "lone \udc00 low",
      "\ud800",
      "é".repeat(70_000),
    ];
    expect(roundTripValues(strings)).toEqual(strings);
  });

  it("gives back null, booleans, and objects as JSON would (undefined and functions: null)", () => {
    const back = roundTripValues([null, undefined, true, false, { deep: [1, "é", null] }, [1, 2], () => 1]);
    expect(back).toEqual([null, null, true, false, { deep: [1, "é", null] }, [1, 2], null]);
  });

  it("grows past its first buffer", () => {
    const big = Array.from({ length: 5000 }, (_, i) => `value ${i} ${"ü".repeat(i % 40)}`);
    expect(roundTripValues(big)).toEqual(big);
  });

  it("refuses an unknown tag", () => {
    const r = new ValueReader();
    r.reset(Buffer.from([0xee]), 0);
    expect(() => r.value()).toThrow(/unknown value tag 238 at byte 0/);
  });
});
