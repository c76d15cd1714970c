import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  JsonArrayFormatError,
  JsonArrayScanner,
  JsonElementTooLargeError,
  MAX_RECORD_BYTES,
} from "../../src/json/array.js";

/** Feeds `chunks` to a fresh scanner and returns the elements' text (end() is called). */
function split(chunks: Buffer[]): string[] {
  const out: string[] = [];
  const scanner = new JsonArrayScanner();
  for (const c of chunks) scanner.push(c, (b) => out.push(b.toString("utf8")));
  scanner.end();
  expect(scanner.count).toBe(out.length);
  return out;
}

const ELEMENTS: unknown[] = [
  { id: 1, name: "has ] and } and , inside", tags: ["[", "{", "]"] },
  { quote: 'he said \\"hi\\" and "bye"', path: "C:\\dir\\", end: "\\" },
  { unicode: "Çalışma Zamanı 夜間回帰テスト 🎉", escaped: "\u00e9\u2028" },
  [
    [1, 2],
    [[], {}],
  ],
  "a top-level string with ] , } and \\",
  42,
  -1.5e3,
  true,
  null,
  { nested: { deeper: { deepest: [{ a: "}" }] } }, empty: "" },
  7,
];
// Whitespace everywhere JSON allows it, and none at all (scalars then end right at ',' and ']').
const PRETTY = `  [\n\t${ELEMENTS.map((e) => JSON.stringify(e, null, e && typeof e === "object" ? 1 : 0)).join(" ,\r\n ")}\n]  \n`;
const COMPACT = JSON.stringify(ELEMENTS);
const EXPECTED = ELEMENTS.map((e) => JSON.stringify(e));

describe("JsonArrayScanner", () => {
  it("finds every element of a tricky array in one chunk", () => {
    const out = split([Buffer.from(PRETTY)]);
    expect(out.map((t) => JSON.stringify(JSON.parse(t)))).toEqual(EXPECTED);
  });

  it.each([
    ["pretty", PRETTY],
    ["compact", COMPACT],
  ])("gives the same elements whatever byte a %s body is split at", (_name, text) => {
    const bytes = Buffer.from(text);
    // Every split point, including inside multi-byte UTF-8 sequences and escapes.
    for (let at = 0; at <= bytes.length; at++) {
      const out = split([bytes.subarray(0, at), bytes.subarray(at)]);
      expect(
        out.map((t) => JSON.stringify(JSON.parse(t))),
        `split at byte ${at}`,
      ).toEqual(EXPECTED);
    }
  });

  it("gives the same elements when fed one byte at a time", () => {
    const bytes = Buffer.from(PRETTY);
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(split(chunks).map((t) => JSON.stringify(JSON.parse(t)))).toEqual(EXPECTED);
  });

  it("emits each element's text exactly as received", () => {
    const text = '[{"b":1,  "a" : [ 2 ]},"x"]';
    expect(split([Buffer.from(text)])).toEqual(['{"b":1,  "a" : [ 2 ]}', '"x"']);
  });

  it.each([
    ["[1,2]", ["1", "2"]],
    ['["a"]', ['"a"']],
    ["[true,null]", ["true", "null"]],
    ["[ 7 ]", ["7"]],
    ['["\\\\"]', ['"\\\\"']],
  ])("ends a scalar at the closing bracket: %s", (text, expected) => {
    expect(split([Buffer.from(text)])).toEqual(expected);
  });

  it.each(["[]", " [ ] ", "\n[\n]\n"])("reads an empty array %j", (text) => {
    expect(split([Buffer.from(text)])).toEqual([]);
  });

  it.each([
    ['{"error":"Unauthorized"}', /expected a JSON array, found '\{'/],
    ["<html>502</html>", /expected a JSON array, found '<'/],
    ["[1] [2]", /after the end/],
    ["[1],", /after the end/],
  ])("refuses %j with JsonArrayFormatError", (text, message) => {
    const scanner = new JsonArrayScanner();
    expect(() => scanner.push(Buffer.from(text), () => {})).toThrow(JsonArrayFormatError);
    expect(() => new JsonArrayScanner().push(Buffer.from(text), () => {})).toThrow(message);
  });

  // The plan list: a misplaced separator costs at most the record it touches, never the list.
  it.each([
    ["[1,,2]", ["1", "2"], "expected an array element, found ','"],
    ["[,1]", ["1"], "expected an array element, found ','"],
    ["[1,]", ["1"], "expected an array element, found ']'"],
    ['[{"a":1}}]', ['{"a":1}', "}"], "unexpected '}' in the array"],
  ])("reads %j leniently by default, and refuses it when strict", (text, elements, message) => {
    expect(split([Buffer.from(text)])).toEqual(elements);
    const strict = () => new JsonArrayScanner({ strict: true }).push(Buffer.from(text), () => {});
    expect(strict).toThrow(JsonArrayFormatError);
    expect(strict).toThrow(message);
  });

  it("splits objects with no comma between them at their closing brace, unless strict", () => {
    const text = '[{"a":1} {"b":2}\n{"c":[3]}]';
    expect(split([Buffer.from(text)])).toEqual(['{"a":1}', '{"b":2}', '{"c":[3]}']);
    const strict: string[] = [];
    const scanner = new JsonArrayScanner({ strict: true });
    scanner.push(Buffer.from(text), (b) => strict.push(b.toString()));
    scanner.end();
    expect(strict).toEqual([text.slice(1, -1)]); // one element, which JSON.parse refuses
  });

  it("hands on an object at its closing brace, before the separator arrives", () => {
    const out: string[] = [];
    const scanner = new JsonArrayScanner();
    scanner.push(Buffer.from('[{"id":1},{"id":2}'), (b) => out.push(b.toString()));
    // The connection may break here: both plans were received whole.
    expect(out).toEqual(['{"id":1}', '{"id":2}']);
    expect(scanner.count).toBe(2);
    expect(scanner.pending()).toBeNull();
    expect(() => scanner.end()).toThrow("the JSON array ended early (truncated response)");
  });

  it.each([
    "",
    "[",
    '[{"id":1},',
    '[{"id":1},{"id":2',
    '[{"id":1},"unterminated ]',
    '[{"s":"ends with escape \\',
  ])("end() throws on a truncated body %j", (text) => {
    const out: string[] = [];
    const scanner = new JsonArrayScanner();
    scanner.push(Buffer.from(text), (b) => out.push(b.toString("utf8")));
    expect(() => scanner.end()).toThrow(JsonArrayFormatError);
    // Complete elements before the cut were delivered; the cut one was not.
    expect(out.every((t) => JSON.parse(t) !== undefined)).toBe(true);
  });

  it("splits any JSON array into its elements wherever the chunks are cut, and counts lines when asked", () => {
    // Strings heavy in backslashes and quotes: the escapes are what chunk edges can break.
    const tricky = fc.string({ unit: fc.constantFrom("\\", '"', "a", "]", "}", ",", "é", "\n") });
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), tricky, fc.array(tricky, { maxLength: 3 }));
    const space = fc.string({ unit: fc.constantFrom(" ", "\n", "\r\n", "\t"), maxLength: 3 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(space, value, space), { maxLength: 8 }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 64 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (items, sizes) => {
          const whole = `[${items.map(([a, v, b]) => a + JSON.stringify(v, null, 1) + b).join(",")}]`;
          // Chunk sizes taken in turn: runs of tiny chunks put every byte at some edge.
          const bytes = Buffer.from(whole);
          const chunks: Buffer[] = [];
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const size = sizes[k % sizes.length] ?? 1;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const values = split(chunks);
          expect(values.map((t) => JSON.parse(t))).toEqual(JSON.parse(whole));
          // Strict, each element runs to its separator; its lines are those of its first
          // byte and of its separator.
          const linesBefore = (end: number) => bytes.subarray(0, end).toString().split("\n").length;
          const scanner = new JsonArrayScanner({ lines: true, strict: true });
          const seen: unknown[] = [];
          for (const c of chunks)
            scanner.push(c, (el, line, endLine, end) => {
              expect(bytes.subarray(end - el.length, end)).toEqual(el);
              expect([",", "]"]).toContain(String.fromCharCode(bytes[end] ?? 0));
              expect(line).toBe(linesBefore(end - el.length));
              expect(endLine).toBe(linesBefore(end));
              seen.push(JSON.parse(el.toString()));
            });
          scanner.end();
          expect(scanner.line).toBe(linesBefore(bytes.length));
          expect(seen).toEqual(JSON.parse(whole));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads any bytes, JSON or not, the same way wherever the chunks are cut, in both modes", () => {
    // Near-JSON: brackets, separators, strings and escapes in any order, long strings included.
    const token = fc.constantFrom(
      "[",
      "]",
      "{",
      "}",
      ",",
      '"',
      "\\",
      " ",
      "\n",
      "1",
      "a",
      ":",
      "é",
      '{"k":[2]}',
      "x".repeat(40),
    );
    const outcome = (opts: { strict?: boolean }, chunks: Buffer[]) => {
      const scanner = new JsonArrayScanner(opts);
      const seen: string[] = [];
      try {
        for (const c of chunks) scanner.push(c, (b) => seen.push(b.toString("latin1")));
        scanner.end();
      } catch (err) {
        seen.push(`${(err as Error).name}: ${(err as Error).message}`);
      }
      return { seen, count: scanner.count, pending: scanner.pending()?.toString("latin1") };
    };
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 40 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (tokens, bracket, sizes, strict) => {
          const bytes = Buffer.from((bracket ? "[" : "") + tokens.join(""));
          const chunks: Buffer[] = [];
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const size = sizes[k % sizes.length] ?? 1;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          expect(outcome({ strict }, chunks)).toEqual(outcome({ strict }, [bytes]));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads values parted by any run of commas and white space as the values, by default", () => {
    const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
    const gap = fc.constantFrom("", ",", ",,", " ", "\n", " , ,");
    fc.assert(
      fc.property(fc.array(fc.tuple(gap, value), { maxLength: 8 }), gap, (items, last) => {
        // One space at least before each value: two values never run together.
        const whole = `[${items.map(([g, v]) => `${g} ${v}`).join("")}${last}]`;
        expect(split([Buffer.from(whole)])).toEqual(items.map(([, v]) => v));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses an element past the limit once it is held, not when it ends", () => {
    const scanner = new JsonArrayScanner({ maxElementBytes: 1000 });
    const emitted: string[] = [];
    scanner.push(Buffer.from('[{"id":1},{"big":"'), (b) => emitted.push(b.toString()));
    const chunk = Buffer.alloc(300, "x");
    let thrown: unknown;
    let pushed = 0;
    try {
      for (; pushed < 100; pushed++) scanner.push(chunk, () => {});
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(JsonElementTooLargeError);
    expect(thrown).toBeInstanceOf(JsonArrayFormatError);
    expect((thrown as Error).message).toBe("an element is larger than 1000 bytes");
    expect(pushed).toBe(3); // 8 + 4 * 300 bytes > 1000: the fourth chunk
    expect(emitted).toEqual(['{"id":1}']);
  });

  it("accepts an element of exactly the limit, and has a 16 MiB limit by default", () => {
    const element = `"${"y".repeat(98)}"`;
    expect(split([Buffer.from(`[${element},1]`)])).toEqual([element, "1"]);
    const exact = new JsonArrayScanner({ maxElementBytes: 100 });
    const out: string[] = [];
    exact.push(Buffer.from("["), () => {});
    for (const c of element) exact.push(Buffer.from(c), (b) => out.push(b.toString()));
    exact.push(Buffer.from("]"), (b) => out.push(b.toString()));
    exact.end();
    expect(out).toEqual([element]);
    expect(MAX_RECORD_BYTES).toBe(16 * 1024 * 1024);
  });
});
