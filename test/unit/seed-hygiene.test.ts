/**
 * Seed-file hygiene: unknown fields warned once each with a did-you-mean (problems when
 * strict), a .json file that is not an array, and problem lines that never carry raw control
 * characters.
 */
import { describe, expect, it } from "vitest";
import { formatProblem, formatWarning } from "../../src/seed/format.js";
import { parseSeed } from "../../src/seed/parse.js";
import type { SeedFormat, SeedOptions } from "../../src/seed/types.js";
import { suggestField } from "../../src/seed/unknown.js";
import { editDistance } from "../../src/text/suggest.js";

const encoder = new TextEncoder();
const parse = (text: string, format: SeedFormat, opts: SeedOptions = {}) =>
  parseSeed(encoder.encode(text), format, opts);

const row = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    company_id: 5251,
    project_id: 52511,
    scenario_name: name,
    source_file: "a.java",
    ...extra,
  });

describe("editDistance", () => {
  it.each([
    ["key", "key", 0],
    ["descripton", "description", 1],
    ["kye", "key", 1], // a swap of neighbours is one edit
    ["scenario_nmae", "scenario_name", 1],
    ["", "key", 3],
    ["parent_id", "parent_key", 3],
  ])("%s -> %s is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("suggestField", () => {
  it.each([
    ["descripton", "description"],
    ["Description", "description"],
    ["scenario_nme", "scenario_name"],
    ["scenarioName", "scenario_name"],
    ["Scenario Name", "scenario_name"],
    ["kye", "key"],
    ["java_test_method", "java_test_methods"],
    ["jira_enable", "jira_enabled"],
    ["parentkey", "parent_key"],
  ])("suggests %s -> %s", (name, known) => {
    expect(suggestField(name)).toBe(known);
  });

  it.each(["owner", "notes", "id", "priority", "x"])("suggests nothing for %s", (name) => {
    expect(suggestField(name)).toBeNull();
  });
});

describe("unknown fields", () => {
  const ndjson = [
    row("A", { descripton: "d", owner: "ayse" }),
    row("B", { owner: "can" }),
    row("C", { descripton: "e", owner: "ece" }),
  ].join("\n");

  it("warns once per unknown field, with its first line and how many rows have it", () => {
    const r = parse(ndjson, "ndjson");
    expect(r.invalid).toEqual([]);
    expect(r.valid).toHaveLength(3);
    expect(r.valid[0]?.body).not.toHaveProperty("descripton");
    expect(r.warnings).toEqual([
      { line: 1, field: "descripton", reason: 'unknown field (did you mean "description"?)', rows: 2 },
      { line: 1, field: "owner", reason: "unknown field", rows: 3 },
    ]);
  });

  it("warns in a JSON array too", () => {
    const r = parse(`[\n${row("A")},\n${row("B", { scenario_nme: "x" })}\n]`, "json");
    expect(r.warnings).toEqual([
      { line: 3, field: "scenario_nme", reason: 'unknown field (did you mean "scenario_name"?)', rows: 1 },
    ]);
  });

  it("makes them problems of their rows when strict, and of the rows' children", () => {
    const text = [
      row("A", { key: "a", descripton: "d" }),
      row("B", { key: "b", parent_key: "a" }),
      row("C", { key: "c" }),
    ].join("\n");
    const r = parse(text, "ndjson", { strict: true });
    expect(r.warnings).toEqual([]);
    expect(r.invalid.map((p) => [p.line, p.field, p.reason])).toEqual([
      [1, "descripton", 'unknown field (did you mean "description"?)'],
      [2, "parent_key", "parent row 1 is invalid"],
    ]);
    expect(r.valid.map((v) => v.key)).toEqual(["c"]);
  });

  it("warns once per unknown CSV column, on the header line", () => {
    const text =
      "company_id,project_id,scenario_name,source_file,descripton,owner,\n5251,52511,A,a,d,ayse,\n5251,52511,B,b,,,";
    const r = parse(text, "csv");
    expect(r.valid).toHaveLength(2);
    expect(r.warnings).toEqual([
      { line: 1, field: "descripton", reason: 'unknown column (did you mean "description"?)', rows: 0 },
      { line: 1, field: "owner", reason: "unknown column", rows: 0 },
    ]);
  });

  it("refuses a strict CSV whose header has an unknown column", () => {
    const r = parse("company_id,project_id,scenario_name,source_file,descripton\n5251,52511,A,a,d", "csv", {
      strict: true,
    });
    expect(r.valid).toEqual([]);
    expect(r.total).toBe(1);
    expect(r.invalid).toEqual([
      { line: 1, key: null, field: "descripton", reason: 'unknown column (did you mean "description"?)' },
    ]);
  });

  it("knows every documented field and alias", () => {
    const all = {
      key: "k",
      parent_key: null,
      description: "d",
      max_execution_time: 1,
      java_test_methods: "m",
      testrail_enabled: true,
      jira_enabled: true,
      xray_enabled: true,
      test_management_enabled: true,
      issue_tracker_enabled: true,
      test_execution_plugin_enabled: true,
      parent: {},
    };
    expect(parse(row("A", all), "ndjson", { strict: true }).invalid).toEqual([]);
  });
});

describe("a .json file that is not an array", () => {
  it.each([
    ["an object", row("A"), "expected a JSON array, got an object"],
    ["NDJSON", `${row("A")}\n${row("B")}`, "expected a JSON array, got an object"],
    ["a string", '"rows"', "expected a JSON array, got a string"],
    ["a number", "42", "expected a JSON array, got a number"],
    ["a boolean", "true", "expected a JSON array, got a boolean"],
    ["null", "null", "expected a JSON array, got null"],
  ])("says it got %s", (_, text, reason) => {
    const r = parse(`\n\n${text}`, "json");
    expect(r.total).toBe(0);
    expect(r.invalid).toHaveLength(1);
    expect(r.invalid[0]?.line).toBe(3);
    expect(r.invalid[0]?.reason.startsWith(reason)).toBe(true);
  });

  it("still reports text that is not JSON at all as not valid JSON", () => {
    expect(parse("nope", "json").invalid[0]?.reason).toMatch(/^not valid JSON: /);
  });
});

describe("problem and warning lines", () => {
  it.each([
    ["NUL", "a\x00b", "a\\x00b"],
    ["ESC", "a\x1b[2Jb", "a\\x1b[2Jb"],
    ["a newline", "a\nb", "a\\nb"],
    ["C1", "a\u009bb", "a\\x9bb"],
    ["a replacement character (bytes that were not UTF-8)", "a\ufffdb", "a\\u{fffd}b"],
  ])("show %s escaped, in the field and in the reason", (_, raw, shown) => {
    const line = formatProblem("s.ndjson", { line: 2, key: null, field: raw, reason: `got ${raw}` });
    expect(line).toBe(`s.ndjson:2: ${shown}: got ${shown}`);
  });

  it("say warning, the field, the reason and the row count", () => {
    expect(
      formatWarning("s.ndjson", {
        line: 3,
        field: "descripton",
        reason: 'unknown field (did you mean "description"?)',
        rows: 2,
      }),
    ).toBe(
      's.ndjson:3: warning: descripton: unknown field (did you mean "description"?), ignored; in 2 rows',
    );
    expect(formatWarning("s.csv", { line: 1, field: "own\x1ber", reason: "unknown column", rows: 0 })).toBe(
      "s.csv:1: warning: own\\x1ber: unknown column, ignored",
    );
  });
});
