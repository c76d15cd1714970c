/** CSV seed files: RFC 4180 quoting, line numbers of records, coercion of cells. */
import { describe, expect, it } from "vitest";
import { tokenizeCsv } from "../../src/seed/csv-tokenize.js";
import { checkSeed, parseSeed, validRows } from "../../src/seed/parse.js";
import type { SeedOptions, SeedParseResult } from "../../src/seed/types.js";

const encoder = new TextEncoder();
const HEADER = "company_id,project_id,scenario_name,source_file";

function csv(text: string, opts: SeedOptions = {}): SeedParseResult {
  return parseSeed(encoder.encode(text), "csv", opts);
}

function problems(r: SeedParseResult): string[] {
  return r.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`);
}

describe("tokenizeCsv", () => {
  it.each<[string, string, { line: number; endLine: number; cells: string[]; error: string | null }[]]>([
    ["plain cells", "a,b\nc,d", [r(1, 1, ["a", "b"]), r(2, 2, ["c", "d"])]],
    ["CRLF line ends", "a,b\r\nc,d\r\n", [r(1, 1, ["a", "b"]), r(2, 2, ["c", "d"])]],
    ["empty cells", ",a,,\n", [r(1, 1, ["", "a", "", ""])]],
    ["a trailing comma at the end of the text", "a,", [r(1, 1, ["a", ""])]],
    ["a quoted comma", '"a,b",c', [r(1, 1, ["a,b", "c"])]],
    ["doubled quotes", '"say ""hi""",x', [r(1, 1, ['say "hi"', "x"])]],
    ["an empty quoted cell", '"",x', [r(1, 1, ["", "x"])]],
    [
      "newlines inside quotes, counted for the next record; a CRLF there becomes LF",
      'a,"line1\nline2\r\nline3"\nb,c',
      [r(1, 3, ["a", "line1\nline2\nline3"]), r(4, 4, ["b", "c"])],
    ],
    ["a lone CR inside quotes, kept", '"a\rb",c', [r(1, 1, ["a\rb", "c"])]],
    ["a quote inside an unquoted cell, kept", 'ab"c,d', [r(1, 1, ['ab"c', "d"])]],
    ["a blank line", "a\n\nb", [r(1, 1, ["a"]), r(2, 2, [""]), r(3, 3, ["b"])]],
    [
      "text after a closing quote",
      '"a"b,c\nd',
      [{ line: 1, endLine: 1, cells: ["a"], error: "unexpected text after a closing quote" }, r(2, 2, ["d"])],
    ],
    [
      "an unterminated quote",
      'a\n"b,\nc',
      [r(1, 1, ["a"]), { line: 2, endLine: 3, cells: ["b,\nc"], error: "unterminated quoted field" }],
    ],
  ])("splits %s", (_, text, expected) => {
    expect(tokenizeCsv(text)).toEqual(expected);
  });

  function r(line: number, endLine: number, cells: string[]) {
    return { line, endLine, cells, error: null };
  }
});

describe("parseSeed csv", () => {
  it("finds text after a closing quote on a line that is not UTF-8, and reads on at the next line", () => {
    // The quoted cell holds bytes that are not UTF-8: where the bad quote is must be counted in
    // bytes, not in characters of the decoded text (it threw 'Quote Not Closed' instead).
    const bytes = Buffer.concat([
      Buffer.from(`${HEADER}\n5251,52511,"a\xff\xa0\x80"x,"S.java"\n`, "latin1"),
      Buffer.from("5251,52511,Next,N.java\n"),
    ]);
    const r = parseSeed(bytes, "csv", {});
    expect(problems(r)).toEqual(["2 -: unreadable encoding: not valid UTF-8"]);
    expect(r.valid.map((v) => [v.line, v.key])).toEqual([[3, "52511/Next"]]);
  });

  it("reads rows with the line on which each record starts", () => {
    const text = [
      `${HEADER},description,key,parent_key`,
      "5251,52511,Suite,Suite.java,,suite,",
      '5251,52511,Child,Child.java,"two\nlines, and a comma",,suite',
      "",
      "5251,52511,Other,Other.java,,,",
    ].join("\n");
    const r = csv(text);
    expect(r.invalid).toEqual([]);
    expect(r.total).toBe(3);
    expect(r.valid.map((v) => [v.line, v.key, v.parentKey])).toEqual([
      [2, "suite", null],
      [3, "52511/Child", "suite"],
      [6, "52511/Other", null],
    ]);
    expect(r.valid[1]?.body.description).toBe("two\nlines, and a comma");
  });

  it("coerces integers and booleans, and treats an empty cell as absent", () => {
    const text = [
      `${HEADER},max_execution_time,testrail_enabled,jira_enabled,xray_enabled,description`,
      "5251, 52511 ,S,S.java,120,TRUE,no,1,",
      "5251,52511,T,T.java,,Yes,False,0,",
    ].join("\n");
    const r = csv(text);
    expect(r.invalid).toEqual([]);
    expect(r.valid.map((v) => v.body)).toEqual([
      {
        project_id: 52511,
        scenario_name: "S",
        source_file: "S.java",
        max_execution_time: 120,
        testrail_enabled: true,
        jira_enabled: false,
        xray_enabled: true,
      },
      {
        project_id: 52511,
        scenario_name: "T",
        source_file: "T.java",
        testrail_enabled: true,
        jira_enabled: false,
        xray_enabled: false,
      },
    ]);
  });

  it("maps the neutral column names", () => {
    const text = `${HEADER},test_management_enabled,issue_tracker_enabled,test_execution_plugin_enabled\n5251,52511,S,S.java,yes,0,true`;
    expect(csv(text).valid[0]?.body).toMatchObject({
      testrail_enabled: true,
      jira_enabled: false,
      xray_enabled: true,
    });
  });

  it("takes company_id from the options when the column is absent or empty", () => {
    const r = csv("project_id,scenario_name,source_file,company_id\n52511,A,a\n52511,B,b,9", {
      defaultCompanyId: 5251,
    });
    expect(r.valid.map((v) => v.companyId)).toEqual([5251, 9]);
  });

  it("reads a parent column holding a JSON object", () => {
    const text = `${HEADER},parent\n5251,52511,S,S.java,"{""id"":900,""group"":true,""childs"":[]}"`;
    const r = csv(text);
    expect(r.invalid).toEqual([]);
    expect(r.valid[0]?.body.parent).toEqual({ id: 900, group: true, childs: [] });
  });

  it("ignores unknown columns and columns without a name", () => {
    const r = csv(`${HEADER},owner,\n5251,52511,S,S.java,ayse,whatever`);
    expect(r.invalid).toEqual([]);
    expect(Object.keys(r.valid[0]!.body)).toEqual(["project_id", "source_file", "scenario_name"]);
  });

  it.each([
    [
      "a fractional integer",
      "max_execution_time",
      "12.5",
      'max_execution_time: expected integer, got "12.5"',
    ],
    ["a word for an integer", "project_id", "abc", 'project_id: expected integer, got "abc"'],
    [
      "a word for a boolean",
      "jira_enabled",
      "maybe",
      'jira_enabled: expected boolean (true/false/1/0/yes/no), got "maybe"',
    ],
    [
      "a word for an alias",
      "issue_tracker_enabled",
      "2",
      'issue_tracker_enabled: expected boolean (true/false/1/0/yes/no), got "2"',
    ],
    ["a parent that is not JSON", "parent", "{id:1}", "parent: expected a JSON object, not valid JSON: "],
    ["a parent that is not an object", "parent", "[1]", "parent: expected a JSON object, got array"],
    ["a parent without id", "parent", '"{""group"":true}"', "parent.id: missing required field"],
  ])("reports %s", (_, column, cell, reason) => {
    const cells: Record<string, string> = {
      company_id: "5251",
      project_id: "52511",
      scenario_name: "S",
      source_file: "S.java",
    };
    cells[column] = cell;
    const r = csv(`${Object.keys(cells).join(",")}\n${Object.values(cells).join(",")}`);
    expect(problems(r)).toHaveLength(1);
    expect(problems(r)[0]?.startsWith(`2 ${reason}`)).toBe(true);
  });

  it("reports missing required cells and a row with more cells than the header", () => {
    const r = csv(`${HEADER}\n5251,52511,,S.java\n5251,52511,S,S.java,extra\n5251,52511,T,T.java`);
    expect(problems(r)).toEqual([
      "2 scenario_name: missing required field",
      "3 -: row has 5 cells, the header has 4",
    ]);
    expect(r.valid.map((v) => v.line)).toEqual([4]);
  });

  it("reports bad quoting on the record's first line and reads the rows before it", () => {
    const r = csv(`${HEADER}\n5251,52511,A,a\n5251,52511,"B"x,b\n5251,52511,C,c\n5251,52511,"D\n\n`);
    expect(problems(r)).toEqual([
      "3 -: unexpected text after a closing quote",
      "5 -: unterminated quoted field",
    ]);
    expect(r.valid.map((v) => v.scenarioName)).toEqual(["A", "C"]);
  });

  it("skips blank lines and spreadsheet rows of empty cells but counts their lines", () => {
    const r = csv(`${HEADER}\n\n,,,\n5251,52511,A,a\n\n`);
    expect(r.total).toBe(1);
    expect(r.valid[0]?.line).toBe(4);
  });

  it.each([
    ["a duplicate column", `${HEADER},project_id\n`, "1 project_id: duplicate column in the header row"],
    [
      "bad quoting in the header",
      `"company_id"x,b\n`,
      "1 -: header row: unexpected text after a closing quote",
    ],
  ])("rejects the whole file for %s", (_, text, expected) => {
    const r = csv(`${text}5251,52511,A,a`);
    expect(problems(r)).toEqual([expected]);
    expect(r.total).toBe(0);
    expect(r.valid).toEqual([]);
  });

  it("reads an empty file, or a header alone, as no rows", () => {
    expect(csv("")).toEqual({ format: "csv", total: 0, valid: [], invalid: [], warnings: [] });
    expect(csv(`${HEADER}\n`)).toEqual({ format: "csv", total: 0, valid: [], invalid: [], warnings: [] });
  });

  it("strips a byte order mark before the first column name", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(`${HEADER}\n5251,52511,A,a`)]);
    const r = parseSeed(bytes, "csv", {});
    expect(r.invalid).toEqual([]);
    expect(r.valid[0]?.companyId).toBe(5251);
  });

  it("reports a record with invalid UTF-8, also on a continuation line of a quoted cell", () => {
    const bytes = new Uint8Array([
      ...encoder.encode(`${HEADER},description\n5251,52511,A,a,ok\n5251,52511,B,b,"first\nsecond `),
      0xff,
      ...encoder.encode(`"\n5251,52511,C,c,caf\u00e9\n`),
    ]);
    const r = parseSeed(bytes, "csv", {});
    expect(problems(r)).toEqual(["3 -: unreadable encoding: not valid UTF-8"]);
    expect(r.valid.map((v) => [v.line, v.body.description])).toEqual([
      [2, "ok"],
      [5, "café"],
    ]);
  });
});

/** The file cut into chunks of `size` bytes, as the reader gets it from disk. */
function chunked(text: string, size: number) {
  const bytes = encoder.encode(text);
  const source = function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  };
  const check = checkSeed(source, "csv", {});
  const valid = [...validRows(source, "csv", {}, check)];
  return { problems: check.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`), valid };
}

describe("csv records across quotes, line ends and chunks", () => {
  it("a bad closing quote is its row's problem alone: the rows after it read, quoted or not", () => {
    const text = [
      `${HEADER},description`,
      '5251,52511,A,a,"1"x',
      '5251,52511,B,b,"""abc"""',
      '5251,52511,C,c,5" screen',
      '5251,52511,D,d,"two\r\nlines"',
      '5251,52511,E,e,"x"y,"z',
      "5251,52511,F,f,ok",
      "",
    ].join("\r\n");
    const r = csv(text);
    expect(problems(r)).toEqual([
      "2 -: unexpected text after a closing quote",
      "7 -: unexpected text after a closing quote",
    ]);
    expect(r.valid.map((v) => [v.line, v.scenarioName, v.body.description])).toEqual([
      [3, "B", '"abc"'],
      [4, "C", '5" screen'],
      [5, "D", "two\nlines"],
      [8, "F", "ok"],
    ]);
    for (const size of [1, 5, 64]) {
      const c = chunked(text, size);
      expect(c.problems).toEqual(problems(r));
      expect(c.valid.map((v) => [v.line, v.body.description])).toEqual(
        r.valid.map((v) => [v.line, v.body.description]),
      );
    }
  });

  it("counts a quoted CRLF as one line and a lone CR as none", () => {
    const text = `${HEADER},description\r\n5251,52511,A,a,"x\r\ny\rz\r\n"\r\n5251,52511,B,b,"\r\n"\r\n5251,52511,C,c,c\r\n`;
    const r = csv(text);
    expect(problems(r)).toEqual([]);
    expect(r.valid.map((v) => [v.line, v.body.description])).toEqual([
      [2, "x\ny\rz\n"],
      [5, undefined], // "\n" is blank: absent
      [7, "c"],
    ]);
  });

  it("reads a BOM before a quoted header, CRLF blank lines, and a last line with or without a line end", () => {
    const rows = `"company_id",project_id,scenario_name,source_file\r\n\r\n5251,52511,A,a\r\n\r\n\r\n5251,52511,B,b`;
    for (const text of [rows, `${rows}\r\n`, `${rows}\n\n`]) {
      const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(text)]);
      const r = parseSeed(bytes, "csv", {});
      expect(problems(r)).toEqual([]);
      expect(r.total).toBe(2);
      expect(r.valid.map((v) => [v.line, v.companyId, v.body.source_file])).toEqual([
        [3, 5251, "a"],
        [6, 5251, "b"],
      ]);
    }
  });

  it("keeps wide and combining characters, and an unterminated quote at the end is one problem", () => {
    const names = ["漢字テスト", "emoji 😀👍🏽", "e\u0301\u200d", "עברית, ltr"];
    const text = `${HEADER}\n${names.map((n) => `5251,52511,"${n}",x.java`).join("\n")}\n5251,52511,"open 😀\n\n`;
    const r = csv(text);
    expect(problems(r)).toEqual(["6 -: unterminated quoted field"]);
    expect(r.valid.map((v) => [v.line, v.scenarioName])).toEqual(names.map((n, i) => [i + 2, n]));
    expect(chunked(text, 3).problems).toEqual(problems(r));
  });

  it("an open quote with no quote after it holds the rest of the file, read in any chunks", () => {
    const rest = Array.from({ length: 3000 }, (_, i) => `5251,52511,S${i},s.java`).join("\n");
    const text = `${HEADER}\n5251,52511,A,a\n5251,52511,"B,b\n${rest}\n`;
    expect(problems(csv(text))).toEqual(["3 -: unterminated quoted field"]);
    for (const size of [7, 4096]) {
      const c = chunked(text, size);
      expect(c.problems).toEqual(["3 -: unterminated quoted field"]);
      expect(c.valid.map((v) => v.line)).toEqual([2]);
    }
  });

  it("reads a file larger than what is parsed at once the same whole and in chunks", () => {
    const lines = [`${HEADER},description`];
    const expected: [number, string][] = [];
    const bad: string[] = [];
    let line = 2;
    for (let i = 0; i < 3000; i++) {
      if (i % 97 === 13) {
        lines.push(`5251,52511,"S${i}"!,s.java,`);
        bad.push(`${line} -: unexpected text after a closing quote`);
        line++;
      } else if (i % 10 === 0) {
        lines.push(`5251,52511,S${i},s.java,"several\r\nlines, ""quoted""\n${"é".repeat(i % 50)}"`);
        expected.push([line, `S${i}`]);
        line += 3;
      } else {
        lines.push(`5251,52511,S${i},s.java,plain ${"字".repeat(i % 30)}`);
        expected.push([line, `S${i}`]);
        line++;
      }
    }
    const text = `${lines.join("\n")}\n`;
    const r = csv(text);
    expect(problems(r)).toEqual(bad);
    expect(r.valid.map((v) => [v.line, v.scenarioName])).toEqual(expected);
    for (const size of [1000, 65_536, 1 << 20]) {
      const c = chunked(text, size);
      expect(c.problems).toEqual(bad);
      expect(c.valid.map((v) => [v.line, v.scenarioName])).toEqual(expected);
    }
  });
});
