/** JSON-array seed files: the line of each element, and one problem for a syntax error. */
import { describe, expect, it } from "vitest";
import { JsonArrayScanner } from "../../src/json/array.js";
import { parseSeed } from "../../src/seed/parse.js";
import type { SeedParseResult } from "../../src/seed/types.js";

/** The scanner as the seed reader runs it, over the text cut into parts of `size` bytes. */
function scanJsonArray(text: string, size: number): { text: string; line: number; endLine: number }[] {
  const scanner = new JsonArrayScanner({ lines: true, strict: true });
  const elements: { text: string; line: number; endLine: number }[] = [];
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size)
    scanner.push(bytes.subarray(at, at + size), (el, line, endLine) =>
      elements.push({ text: el.toString(), line, endLine }),
    );
  scanner.end();
  return elements;
}

const encoder = new TextEncoder();
const row = (name: string, extra = "") =>
  `{"company_id": 5251, "project_id": 52511, "scenario_name": "${name}", "source_file": "${name}.java"${extra}}`;

function json(text: string): SeedParseResult {
  return parseSeed(encoder.encode(text), "json", {});
}

function problems(r: SeedParseResult): string[] {
  return r.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`);
}

describe("parseSeed json", () => {
  it("gives each element the line on which it starts", () => {
    const text = `[\n  ${row("A")},\n\n  {\n    "company_id": 5251,\n    "project_id": 52511,\n    "scenario_name": "B, \\"quoted\\" [x]",\n    "source_file": "b"\n  }, ${row("C")}\n]\n`;
    const r = json(text);
    expect(r.invalid).toEqual([]);
    expect(r.valid.map((v) => [v.line, v.scenarioName])).toEqual([
      [2, "A"],
      [4, 'B, "quoted" [x]'],
      [9, "C"],
    ]);
  });

  it("reads a one-line array and an empty array", () => {
    expect(json(`[${row("A")},${row("B")}]`).valid.map((v) => v.line)).toEqual([1, 1]);
    expect(json(" [ ] ")).toEqual({ format: "json", total: 0, valid: [], invalid: [], warnings: [] });
    expect(json("")).toEqual({ format: "json", total: 0, valid: [], invalid: [], warnings: [] });
  });

  it("reports rows that are not objects or have bad fields, on their own lines", () => {
    const r = json(
      `[\n${row("A")},\n42,\n${row("", ', "key": "k"')},\n${row("B", ', "parent_key": "k"')}\n]`,
    );
    expect(problems(r)).toEqual([
      "3 -: expected a JSON object, got integer 42",
      "4 scenario_name: must not be empty",
      "5 parent_key: parent row 4 is invalid",
    ]);
    expect(r.total).toBe(4);
  });

  it.each([
    ["a missing comma", `[\n${row("A")}\n${row("B")}\n]`, 3],
    ["a trailing comma", `[\n${row("A")},\n]`, 3],
    [
      "a broken value inside an element",
      `[\n${row("A")},\n{"company_id": 5251,\n "project_id": 52x511}\n]`,
      4,
    ],
    ["an unclosed array", `[\n${row("A")},\n${row("B")}\n`, 4],
    ["text after the array", `[${row("A")}]\n\nx`, 3],
    ["a word instead of an array", "nope", 1],
    ["a stray closing brace", `[\n${row("A")}\n}]`, 3],
  ])("reports %s as one problem for the file, near the error", (_, text, line) => {
    const r = json(text);
    expect(r.valid).toEqual([]);
    expect(r.total).toBe(0);
    expect(r.invalid).toHaveLength(1);
    expect(r.invalid[0]).toMatchObject({ line, key: null, field: null });
    expect(r.invalid[0]?.reason.startsWith("not valid JSON: ")).toBe(true);
  });

  it("reports an element with invalid UTF-8 and reads the others", () => {
    const bytes = new Uint8Array([
      ...encoder.encode(`[\n${row("A")},\n{"company_id": 5251, "project_id": 52511, "scenario_name": "`),
      0xc3,
      0x28,
      ...encoder.encode(`", "source_file": "x"},\n${row("Ça")}\n]`),
    ]);
    const r = parseSeed(bytes, "json", {});
    expect(problems(r)).toEqual(["3 -: unreadable encoding: not valid UTF-8"]);
    expect(r.valid.map((v) => v.scenarioName)).toEqual(["A", "Ça"]);
  });

  it("strips a byte order mark", () => {
    const r = parseSeed(new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(`[${row("A")}]`)]), "json", {});
    expect(r.invalid).toEqual([]);
  });
});

describe("JsonArrayScanner for a seed file", () => {
  it.each([1, 2, 3, 7, 100])(
    "is not fooled by brackets, commas and escaped quotes inside strings, in parts of %i",
    (size) => {
      const scan = scanJsonArray('[{"a":"],[\\"{"}, ["x,y"] ,3]', size);
      expect(scan).toEqual([
        { text: '{"a":"],[\\"{"}', line: 1, endLine: 1 },
        { text: '["x,y"] ', line: 1, endLine: 1 },
        { text: "3", line: 1, endLine: 1 },
      ]);
    },
  );
});
