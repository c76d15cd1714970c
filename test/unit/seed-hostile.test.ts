/** The seed reader on files as they come from spreadsheets, editors and attackers. */
import { describe, expect, it } from "vitest";
import { parseSeed } from "../../src/seed/parse.js";
import type { SeedFormat, SeedParseResult } from "../../src/seed/types.js";

const encoder = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];
const ROW = { company_id: 5251, project_id: 52511, scenario_name: "Login", source_file: "Login.java" };
const ROW2 = { ...ROW, scenario_name: "Cart", source_file: "Cart.java" };
const CSV_HEADER = "company_id,project_id,scenario_name,source_file";
const csvLine = (r: typeof ROW) => `${r.company_id},${r.project_id},${r.scenario_name},${r.source_file}`;

/** Two good rows in each format, lines joined with `eol`. */
function twoRows(format: SeedFormat, eol: string): string {
  if (format === "ndjson") return [ROW, ROW2].map((r) => JSON.stringify(r)).join(eol) + eol;
  if (format === "json") return `[${eol}${JSON.stringify(ROW)},${eol}${JSON.stringify(ROW2)}${eol}]${eol}`;
  return [CSV_HEADER, csvLine(ROW), csvLine(ROW2)].join(eol) + eol;
}

const parse = (bytes: Uint8Array | string, format: SeedFormat): SeedParseResult =>
  parseSeed(typeof bytes === "string" ? encoder.encode(bytes) : bytes, format, {});

const problems = (r: SeedParseResult) => r.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`);
const FORMATS: SeedFormat[] = ["ndjson", "json", "csv"];

describe("hostile seed files", () => {
  it.each(FORMATS)("%s: a byte-order mark is allowed and line 1 stays line 1", (format) => {
    const r = parse(Uint8Array.from([...BOM, ...encoder.encode(twoRows(format, "\n"))]), format);
    expect(problems(r)).toEqual([]);
    expect(r.valid.map((v) => [v.scenarioName, v.line])).toEqual(
      format === "ndjson"
        ? [
            ["Login", 1],
            ["Cart", 2],
          ]
        : [
            ["Login", 2],
            ["Cart", 3],
          ],
    );
  });

  it.each(FORMATS)("%s: CRLF line ends read like LF, with no CR left in any value", (format) => {
    const r = parse(twoRows(format, "\r\n"), format);
    expect(problems(r)).toEqual([]);
    expect(r.valid.map((v) => v.body.source_file)).toEqual(["Login.java", "Cart.java"]);
  });

  it.each(FORMATS)(
    "%s: a line that is not UTF-8 is one problem on its line, the others still read",
    (format) => {
      const text = twoRows(format, "\n").replace("Cart", "C\u0001rt");
      const bytes = encoder.encode(text).map((b) => (b === 0x01 ? 0xff : b));
      const r = parse(bytes, format);
      const line = format === "ndjson" ? 2 : 3;
      expect(problems(r)).toEqual([`${line} -: unreadable encoding: not valid UTF-8`]);
      expect(r.valid.map((v) => v.scenarioName)).toEqual(["Login"]);
    },
  );

  it.each(FORMATS)(
    "%s: a 10 MB value on one line is read, and a 10 MB bad value gives a short problem",
    (format) => {
      const big = "d".repeat(10 * 1024 * 1024);
      const good =
        format === "csv"
          ? `${CSV_HEADER},description\n${csvLine(ROW)},${big}\n`
          : format === "json"
            ? `[${JSON.stringify({ ...ROW, description: big })}]`
            : JSON.stringify({ ...ROW, description: big });
      const read = parse(good, format);
      expect(problems(read)).toEqual([]);
      expect(read.valid[0]?.body.description).toHaveLength(big.length);

      const bad =
        format === "csv"
          ? `${CSV_HEADER}\n5251,${big},Login,Login.java\n`
          : format === "json"
            ? `[{"project_id": ${big}}]`
            : `{"project_id": ${big}}`;
      const r = parse(bad, format);
      expect(r.invalid.length).toBeGreaterThan(0);
      expect(r.invalid[0]?.line).toBe(format === "csv" ? 2 : 1);
      for (const p of r.invalid) expect(p.reason.length).toBeLessThan(200);
    },
  );

  it.each(FORMATS)("%s: unknown columns are ignored, as documented", (format) => {
    const extra = { owner: "ayşe", notes: [1, { deep: true }], "": 3, __proto__x: null };
    const text =
      format === "csv"
        ? `${CSV_HEADER},owner,,notes\n${csvLine(ROW)},ayşe,x,"[1]"\n`
        : format === "json"
          ? JSON.stringify([{ ...ROW, ...extra }])
          : JSON.stringify({ ...ROW, ...extra });
    const r = parse(text, format);
    expect(problems(r)).toEqual([]);
    expect(Object.keys(r.valid[0]?.body ?? {}).sort()).toEqual([
      "project_id",
      "scenario_name",
      "source_file",
    ]);
  });

  it("numbers as strings: an error in JSON formats (types are strict), converted in CSV (cells are text)", () => {
    const row = { ...ROW, company_id: "5251", project_id: "52511", max_execution_time: "60" };
    for (const format of ["ndjson", "json"] as const) {
      const text = format === "json" ? JSON.stringify([row]) : JSON.stringify(row);
      expect(problems(parse(text, format))).toEqual([
        "1 company_id: expected integer, got string",
        "1 project_id: expected integer, got string",
        "1 max_execution_time: expected integer, got string",
      ]);
    }
    const csv = parse(`${CSV_HEADER},max_execution_time\n"5251"," 52511 ",Login,Login.java,060\n`, "csv");
    expect(problems(csv)).toEqual([]);
    expect(csv.valid[0]).toMatchObject({
      companyId: 5251,
      projectId: 52511,
      body: { max_execution_time: 60 },
    });
  });

  it("an alias conflicting with an object that shadows toString is a problem, not a TypeError", () => {
    const line = `{"project_id":52511,"scenario_name":"a","source_file":"b","company_id":5251,"test_management_enabled":{"toString":1},"testrail_enabled":true}`;
    expect(problems(parse(line, "ndjson"))).toEqual([
      "1 test_management_enabled: conflicts with testrail_enabled (true vs object)",
    ]);
  });

  it("values nested 100,000 deep are a problem of their row", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const line = `{"project_id":52511,"scenario_name":"a","source_file":"b","company_id":5251,"parent":${deep},"issue_tracker_enabled":${deep},"jira_enabled":true}`;
    const r = parse(`${line}\n${JSON.stringify(ROW)}`, "ndjson");
    expect(r.invalid.map((p) => [p.line, p.field])).toEqual([
      [1, "issue_tracker_enabled"],
      [1, "parent"],
    ]);
    expect(r.valid.map((v) => v.line)).toEqual([2]);
  });

  it("a long unknown parent_key and a parent cycle of long keys are quoted short", () => {
    const long = "k".repeat(1_000_000);
    const r = parse(
      [
        { ...ROW, key: `a${long}`, parent_key: `b${long}` },
        { ...ROW2, key: `b${long}`, parent_key: `a${long}` },
        { ...ROW, scenario_name: "X", parent_key: `z${long}` },
      ]
        .map((x) => JSON.stringify(x))
        .join("\n"),
      "ndjson",
    );
    expect(r.invalid).toHaveLength(3);
    for (const p of r.invalid) expect(p.reason.length).toBeLessThan(400);
    expect(r.invalid[2]?.reason).toMatch(/^unknown parent_key "zkkk+…"$/);
  });
});
