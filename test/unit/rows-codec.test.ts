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
      new RegExp(`^row shape 0, not said before, at byte 4 of plan rows of ${bytes.length} bytes$`),
    );
    expect(() => new RowsDecoder().decode(Buffer.from('["h"]'), 0, 5)).toThrow(/without their mark/);
    expect(() => new RowsDecoder().decode(bytes, 2, 2)).toThrow(/without their mark at byte 0/);
  });

  describe("holds the rows to their end, never reading the frame's text or the next frame", () => {
    const decoder = new RowsDecoder();
    const encoder = new RowsEncoder((id, keys) => decoder.shape(id, keys));
    // mark 0 | hash "h" 1-3 | plan row: shape 4-5, id 6-10, name 11-18 | days count 19-22 | ...
    const bytes = encoder.encode(rowSet({ id: 1, name: "a name" }, [{ planId: 1, scenarioId: 2 }]), "h");
    // The rows 7 bytes into the buffer, the frame's text after them (errors count from the rows).
    const file = Buffer.concat([Buffer.from("padding"), bytes, Buffer.from('{"id":1}')]);
    const rowsEnd = 7 + bytes.length;
    const cut = (at: number) => () => decoder.decode(file, 7, 7 + at);

    it("reads them whole", () => {
      expect(decoder.decode(file, 7, rowsEnd).rows.plan).toEqual({ id: 1, name: "a name" });
    });
    it("refuses rows that end before their frame", () => {
      expect(() => decoder.decode(file, 7, rowsEnd + 1)).toThrow(
        `the rows' end, before the frame's at byte ${bytes.length} of plan rows of ${bytes.length + 1} bytes`,
      );
    });
    it("refuses each part cut by the end: the operation, a row's shape, a number, a string, a count", () => {
      expect(cut(bytes.length - 1)).toThrow(`a value past the rows' end at byte ${bytes.length - 1}`);
      expect(cut(5)).toThrow("a row's shape past the rows' end at byte 4 of plan rows of 5 bytes");
      expect(cut(9)).toThrow("a number past the rows' end at byte 6");
      expect(cut(12)).toThrow("a string past the rows' end at byte 11");
      expect(cut(18)).toThrow("a string past the rows' end at byte 11");
      expect(cut(21)).toThrow("the count of days past the rows' end at byte 19");
    });
    it("refuses a long string cut by the end, and a count no rows could fill", () => {
      const long = encoder.encode(rowSet({ id: 1, name: "é".repeat(10) }), "h");
      const tail = Buffer.concat([long, Buffer.from("text after")]);
      expect(() => decoder.decode(tail, 0, 12)).toThrow("a string past the rows' end at byte 11");
      expect(() => decoder.decode(tail, 0, 20)).toThrow("a string past the rows' end at byte 11");
      // Cut inside a string's length, where the buffer itself ends: refused, not read as nothing.
      const ending = (b: Buffer, at: number) => () => decoder.decode(Buffer.from(b.subarray(0, at)), 0, at);
      expect(ending(bytes, 12)).toThrow("a string past the rows' end at byte 11 of plan rows of 12 bytes");
      expect(ending(long, 14)).toThrow("a string past the rows' end at byte 11 of plan rows of 14 bytes");
      const float = encoder.encode(rowSet({ id: 1.5 }), "h");
      expect(ending(float, 10)).toThrow("a number past the rows' end at byte 6");
      const huge = Buffer.from(bytes);
      huge.writeUInt32LE(0xffffffff, 19);
      expect(() => decoder.decode(huge, 0, huge.length)).toThrow(
        "4294967295 rows of days past the rows' end at byte 19",
      );
    });
    it("refuses an end past the buffer, a hash that is no string, an operation with no name", () => {
      expect(() => decoder.decode(file, 7, file.length + 1)).toThrow(/of a buffer of/);
      const numbered = encoder.encode(rowSet({ id: 1 }), 5 as unknown as string);
      expect(() => decoder.decode(numbered, 0, numbered.length)).toThrow(
        /a content hash that is no string at byte 1/,
      );
      const unnamed = encoder.encode(rowSet({ id: 1 }), "h", "");
      expect(() => decoder.decode(unnamed, 0, unnamed.length)).toThrow(/an operation that is no name/);
    });
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
    expect(() => r.value()).toThrow("an unknown value tag 238 at byte 1 of plan rows of 2 bytes");
  });
});
