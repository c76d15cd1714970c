/** A JSON object with the same key twice is refused with its line, in every format that holds JSON. */
import { describe, expect, it } from "vitest";
import { repeatedKey } from "../../src/seed/json-keys.js";
import { parseSeed } from "../../src/seed/parse.js";
import type { SeedFormat, SeedParseResult } from "../../src/seed/types.js";

const encoder = new TextEncoder();
const problems = (r: SeedParseResult) => r.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`);
const REASON = "repeated key in one JSON object (JSON.parse would keep only the last value)";
const ok = '{"company_id":1,"project_id":7,"scenario_name":"Fine","source_file":"F.java"}';
const twice = '{"company_id":1,"project_id":7,"scenario_name":"Twice","source_file":"T.java","project_id":8}';

describe("repeatedKey", () => {
  it.each<[string, string | null]>([
    ['{"a":1,"b":2}', null],
    ['{"a":1,"a":2}', "a"],
    ['{"a":1, "b": {"c":1,"c":2}}', "b.c"],
    ['{"a":{"x":1},"b":{"x":1}}', null],
    ['{"a":[{"x":1},{"x":2}]}', null],
    ['{"a":[{"x":1,"x":2}]}', "a[].x"],
    ['{"a":"\\"a\\":1","b":2}', null],
    ['{"a\\u0062":1,"ab":2}', "ab"],
    ['{"k":"x\\\\","k":1}', "k"],
    ['{"a" : 1 ,\n "a"\t: 2}', "a"],
  ])("in %s finds %j", (text, expected) => {
    JSON.parse(text); // every case is valid JSON
    expect(repeatedKey(text)).toBe(expected);
  });
});

describe("a row with a repeated key", () => {
  const cases: [SeedFormat, string, number][] = [
    ["ndjson", `${ok}\n${twice}\n`, 2],
    ["json", `[\n${ok},\n${twice}\n]`, 3],
  ];
  it.each(cases)("%s: is refused on its line, naming the key", (format, text, line) => {
    const r = parseSeed(encoder.encode(text), format, {});
    expect(problems(r)).toEqual([`${line} project_id: ${REASON}`]);
    expect(r.valid.map((v) => v.scenarioName)).toEqual(["Fine"]);
  });

  it("csv: a parent cell with a repeated key is refused on its line", () => {
    const csv =
      'company_id,project_id,scenario_name,source_file,parent\n1,7,Fine,F.java,\n1,7,Child,C.java,"{""id"":5,""id"":6}"\n';
    const r = parseSeed(encoder.encode(csv), "csv", {});
    expect(problems(r)).toEqual([`3 parent: id: ${REASON}`]);
  });

  it("keeps the row's key, so its children are reported as children of an invalid row", () => {
    const keyed = twice.replace("{", '{"key":"tw",');
    const child =
      '{"company_id":1,"project_id":8,"scenario_name":"Kid","source_file":"K.java","parent_key":"tw"}';
    const r = parseSeed(encoder.encode(`${keyed}\n${child}`), "ndjson", {});
    expect(problems(r)).toEqual([`1 project_id: ${REASON}`, "2 parent_key: parent row 1 is invalid"]);
  });
});
