/** The streaming output formats of `query`: table, csv, json, ndjson. */
import { describe, expect, it } from "vitest";
import { createSink } from "../../src/commands/format/create.js";
import { csvField } from "../../src/commands/format/csv.js";
import type { OutputFormat } from "../../src/commands/format/defaults.js";
import { type TableOptions, tableSink } from "../../src/commands/format/table.js";
import { displayWidth } from "../../src/commands/format/width.js";

/** Runs a sink over the rows; returns every piece written, in order. */
function render(
  format: OutputFormat,
  columns: string[],
  rows: unknown[][],
  table: TableOptions = {},
): string[] {
  const parts: string[] = [];
  const sink = createSink(format, (t) => parts.push(t), table);
  sink.begin(columns);
  for (const r of rows) sink.row(r);
  sink.end();
  return parts;
}

const text = (parts: string[]) => parts.join("");

describe("csv", () => {
  it.each([
    ["plain text", "abc", "abc"],
    ["a comma", "a,b", '"a,b"'],
    ["a quote, doubled", 'say "hi"', '"say ""hi"""'],
    ["a newline", "a\nb", '"a\nb"'],
    ["a carriage return", "a\rb", '"a\rb"'],
    ["NULL as an empty field", null, ""],
    ["the empty string as two quotes", "", '""'],
    ["a 64-bit integer exactly", 9007199254740993n, "9007199254740993"],
    ["a real", 0.5, "0.5"],
    ["a blob as its literal", Buffer.from([0, 255]), "X'00FF'"],
    ["control characters as they are", "a\x1bb", "a\x1bb"],
  ])("writes %s", (_, value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ["@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"],
    ["\t=1+1", "'\t=1+1"],
    ["\r=1+1", `"'\r=1+1"`],
    ["=", "'="],
    ["-", "'-"],
    ["- a list item", "'- a list item"],
    ["a=1", "a=1"],
    [" =1", " =1"],
  ])("makes the formula %j inert with a leading quote", (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each([
    ["-5", "-5"],
    ["+5", "+5"],
    ["-1.25", "-1.25"],
    ["-.5", "-.5"],
    ["-2e3", "-2e3"],
    [-5, "-5"],
    [-9007199254740993n, "-9007199254740993"],
    [-0.5, "-0.5"],
  ])("leaves the number %s as it is (a spreadsheet reads it as that number)", (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it("writes cells exactly as stored with raw", () => {
    expect(csvField("=1+1", { raw: true })).toBe("=1+1");
    expect(csvField("+cmd|' /C calc'!A0", { raw: true })).toBe("+cmd|' /C calc'!A0");
    expect(csvField("\r=1", { raw: true })).toBe('"\r=1"');
  });

  it("guards header names too", () => {
    expect(text(render("csv", ["=cmd", "ok"], [["@x", -1]]))).toBe("'=cmd,ok\r\n'@x,-1\r\n");
  });

  it("writes a header row and CRLF-terminated records", () => {
    expect(
      text(
        render(
          "csv",
          ["id", "note"],
          [
            [1, "x,y"],
            [2, null],
          ],
        ),
      ),
    ).toBe('id,note\r\n1,"x,y"\r\n2,\r\n');
  });
});

describe("json and ndjson", () => {
  const columns = ["id", "2", "text", "big", "blob"];
  const rows = [
    [1, "b", 'quote " and \\ and \n and \u2028 and \x1b', 9007199254740993n, null],
    [2, null, "日本 👍", 1n, Buffer.from([1])],
  ];

  it("streams one JSON array that parses, element by element", () => {
    const parts = render("json", columns, rows);
    expect(parts.length).toBeGreaterThanOrEqual(rows.length); // a write per row, not one at the end
    const parsed = JSON.parse(text(parts)) as Record<string, unknown>[];
    expect(parsed).toEqual([
      { id: 1, "2": "b", text: rows[0]![2], big: 9007199254740992, blob: null },
      { id: 2, "2": null, text: "日本 👍", big: 1, blob: "X'01'" },
    ]);
    // Integer-like names keep their place, and big integers are written exactly.
    expect(text(parts)).toContain('{"id":1,"2":"b",');
    expect(text(parts)).toContain('"big":9007199254740993');
  });

  it("writes an empty array for no rows", () => {
    expect(JSON.parse(text(render("json", ["a"], [])))).toEqual([]);
  });

  it("writes one object per line in ndjson", () => {
    const lines = text(render("ndjson", columns, rows)).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((l) => JSON.parse(l).id)).toEqual([1, 2]);
  });

  it("keeps both columns of a duplicated name in order", () => {
    expect(text(render("ndjson", ["a", "a"], [[1, 2]]))).toBe('{"a":1,"a":2}\n');
  });
});

describe("table", () => {
  const lines = (parts: string[]) => text(parts).split("\n").slice(0, -1);

  it("aligns by display width, with CJK and emoji two columns wide", () => {
    const out = lines(
      render(
        "table",
        ["name", "n"],
        [
          ["日本", 1],
          ["ab", 22],
          ["👍x", 3],
        ],
      ),
    );
    expect(out).toEqual(["name  n", "----  --", "日本  1", "ab    22", "👍x   3"]);
    const at = out.slice(2).map((l) => displayWidth(l.slice(0, l.lastIndexOf(" ") + 1)));
    expect(new Set(at).size).toBe(1); // the second column starts at the same screen column
  });

  it("shows NULL, and control characters as escapes", () => {
    const out = text(render("table", ["v"], [[null], ["a\x1b[2Jb\nc\td\x00e\u009bf"]]));
    expect(out).toContain("NULL");
    expect(out).toContain("a\\x1b[2Jb\\nc\\td\\x00e\\x9bf");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
    expect(out.replaceAll("\n", "")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it("cuts long cells to the maximum width at a grapheme boundary", () => {
    const out = lines(render("table", ["v"], [["日本語".repeat(10)]], { maxCellWidth: 7 }));
    expect(out[2]).toBe("日本語…");
  });

  it("says (no rows) under the header when the result is empty", () => {
    expect(lines(render("table", ["a", "b"], []))).toEqual(["a  b", "-  -", "(no rows)"]);
  });

  it("streams 50,000 rows with the widths of the first rows, writing as it goes", () => {
    const parts: string[] = [];
    const sink = tableSink((t) => parts.push(t), { sampleRows: 100 });
    sink.begin(["id", "name"]);
    let writtenBeforeEnd = 0;
    for (let i = 0; i < 50_000; i++) {
      // The first 100 names are short; later ones are longer than the column they got.
      sink.row([i, i < 100 ? `n${i % 10}` : `a much longer name ${i}`]);
      if (i === 49_999) writtenBeforeEnd = parts.length;
    }
    sink.end();
    const out = lines(parts);
    expect(out).toHaveLength(50_002);
    expect(writtenBeforeEnd).toBeGreaterThan(49_000); // one write per row once the widths are known
    expect(out[0]).toBe("id  name");
    expect(out[2]).toBe("0   n0");
    // Later names are cut to the column's 4 columns; later ids (numbers) are never cut.
    expect(out[50_001]).toBe("49999  a m…");
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(100);
  });
});
