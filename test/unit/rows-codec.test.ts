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

/** A copy of `bytes` in a buffer that starts 5 bytes into its memory (byteOffset 5). */
function atOffset(bytes: Buffer): Buffer {
  const memory = Buffer.alloc(bytes.length + 13);
  bytes.copy(memory, 5);
  const view = memory.subarray(5, 5 + bytes.length);
  expect(view.byteOffset).toBe(memory.byteOffset + 5);
  return view;
}

/** Encodes, says each new shape to a decoder as the file would, and decodes. */
function roundTrip(sets: PlanRowSet[]): PlanRowSet[] {
  const decoder = new RowsDecoder();
  const said: number[] = [];
  const encoder = new RowsEncoder((id, keys) => {
    said.push(id);
    decoder.shape(id, JSON.parse(JSON.stringify(keys)));
  });
  // Each set's bytes at an offset inside a larger buffer, itself a view at an offset of its
  // memory (as the file's reader hands them over).
  const out = sets.map((s, i) => {
    const bytes = encoder.encode(s, `h${i}`);
    const inside = atOffset(Buffer.concat([Buffer.from("xyz"), bytes, Buffer.from("tail")]));
    return decoder.decode(inside, 3, 3 + bytes.length);
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

  it("keeps integer-like keys with their values (an object lists them first, as Object.keys does)", () => {
    const row = JSON.parse('{"b": 1, "1": 2, "0": 3, "a": 4}') as Record<string, unknown>;
    const [back] = roundTrip([rowSet(row)]);
    expect(Object.entries(back?.plan ?? {})).toEqual(Object.entries(row));
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
    const write = encoder.encode(set, "h");
    const update = encoder.encode(set, "h", "plan.update");
    expect(decoder.decode(write, 0, write.length).op).toBe("plan.write");
    expect(decoder.decode(update, 0, update.length).op).toBe("plan.update");
  });

  it("refuses a row whose shape was never said, and bytes that are no plan rows", () => {
    const encoder = new RowsEncoder(() => {});
    const bytes = encoder.encode(rowSet({ id: 1 }), "h");
    expect(() => new RowsDecoder().decode(bytes, 0, bytes.length)).toThrow(
      /holds row shape 0, not said before, at byte 4 of a plan's rows/,
    );
    expect(() => new RowsDecoder().decode(Buffer.from('["h"]'), 0, 5)).toThrow(/without their mark/);
  });

  it("holds the rows to their frame: one byte short or long is refused, never read past", () => {
    const decoder = new RowsDecoder();
    const encoder = new RowsEncoder((id, keys) => decoder.shape(id, keys));
    const bytes = encoder.encode(rowSet({ id: 1, name: "a name" }, [{ planId: 1, scenarioId: 2 }]), "h");
    // The frame's text follows the rows in the file: bytes a decoder must not take for rows.
    const file = Buffer.concat([bytes, Buffer.from('{"id":1}')]);
    expect(decoder.decode(file, 0, bytes.length).rows.plan).toEqual({ id: 1, name: "a name" });
    expect(() => decoder.decode(file, 0, bytes.length + 1)).toThrow(
      /plan rows of \d+ bytes in a frame of \d+/,
    );
    expect(() => decoder.decode(file, 0, bytes.length - 1)).toThrow(/past its frame's end/);
    // A string whose length runs past the frame: refused, not cut short.
    expect(() => decoder.decode(file, 0, 12)).toThrow(/a string past its frame's end/);
    expect(() => decoder.decode(file, 0, file.length + 1)).toThrow(/up to byte/);
  });

  it("refuses more row shapes than a file may hold", () => {
    const encoder = new RowsEncoder(() => {}, 2);
    encoder.encode(rowSet({ a: 1 }, [{ b: 1 }]), "h");
    expect(() => encoder.encode(rowSet({ c: 1 }), "h")).toThrow(/more than 2 shapes/);
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
    r.reset(atOffset(Buffer.from(w.buf.subarray(0, w.at))), 3, w.at);
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
      "w".repeat(255),
      "v".repeat(256),
      "\ufeffa leading BOM",
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

  it("goes back to its first buffer's size after a long value", () => {
    const w = new ValueWriter();
    const first = w.buf.length;
    w.value("é".repeat(1_000_000));
    expect(w.buf.length).toBeGreaterThan(2_000_000);
    w.restart();
    expect([w.at, w.buf.length]).toEqual([0, first]);
  });

  it("refuses an unknown tag", () => {
    const r = new ValueReader();
    r.reset(Buffer.from([0, 0xee]), 0, 2);
    r.value();
    expect(() => r.value()).toThrow(/unknown value tag 238 at byte 1 of a plan's rows/);
  });
});
