/** Row validation and the checks between rows, through NDJSON (the formats are tested apart). */
import { describe, expect, it } from "vitest";
import { parseSeed } from "../../src/seed/parse.js";
import type { SeedOptions, SeedParseResult } from "../../src/seed/types.js";

const encoder = new TextEncoder();

function base(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { company_id: 5251, project_id: 52511, scenario_name: name, source_file: `${name}.java`, ...extra };
}

/** Objects are serialized, strings are raw lines. */
function parse(lines: (Record<string, unknown> | string)[], opts: SeedOptions = {}): SeedParseResult {
  const text = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n");
  return parseSeed(encoder.encode(text), "ndjson", opts);
}

function problems(r: SeedParseResult): string[] {
  return r.invalid.map((p) => `${p.line} ${p.field ?? "-"}: ${p.reason}`);
}

describe("parseSeed: one row", () => {
  it("returns a valid row with the wire body, the key and the company", () => {
    const r = parse([base("Login", { description: "d", max_execution_time: 60, java_test_methods: "a,b" })]);
    expect(r).toEqual({
      format: "ndjson",
      total: 1,
      invalid: [],
      warnings: [],
      valid: [
        {
          key: "52511/Login",
          line: 1,
          companyId: 5251,
          projectId: 52511,
          scenarioName: "Login",
          parentKey: null,
          body: {
            project_id: 52511,
            scenario_name: "Login",
            source_file: "Login.java",
            description: "d",
            max_execution_time: 60,
            java_test_methods: "a,b",
          },
        },
      ],
    });
  });

  it("keeps key, company_id, parent_key and unknown fields out of the body", () => {
    const r = parse([base("A", { key: "a", owner: "ayse", notes: 3 }), base("B", { parent_key: "a" })]);
    expect(r.invalid).toEqual([]);
    for (const row of r.valid) {
      expect(Object.keys(row.body).sort()).toEqual(["project_id", "scenario_name", "source_file"]);
    }
  });

  it.each([
    ["a string key", { key: "k-1" }, "k-1"],
    ["a numeric key, as a string", { key: 42 }, "42"],
    ["no key: project_id/scenario_name", {}, "52511/S"],
    ["a null key: the default", { key: null }, "52511/S"],
  ])("takes %s", (_, extra, key) => {
    expect(parse([base("S", extra)]).valid[0]?.key).toBe(key);
  });

  it.each([
    ["test_management_enabled", "testrail_enabled"],
    ["issue_tracker_enabled", "jira_enabled"],
    ["test_execution_plugin_enabled", "xray_enabled"],
  ])("maps the neutral name %s to %s", (alias, wire) => {
    const r = parse([base("S", { [alias]: true })]);
    expect(r.invalid).toEqual([]);
    expect(r.valid[0]?.body).toEqual({
      project_id: 52511,
      scenario_name: "S",
      source_file: "S.java",
      [wire]: true,
    });
  });

  it("accepts an alias and its wire name when they agree", () => {
    const r = parse([base("S", { jira_enabled: false, issue_tracker_enabled: false })]);
    expect(r.invalid).toEqual([]);
    expect(r.valid[0]?.body.jira_enabled).toBe(false);
  });

  it("uses the default company when the row has none, and the row's own when it has one", () => {
    const r = parse([base("A", { company_id: undefined }), base("B", { company_id: 7 })], {
      defaultCompanyId: 5251,
    });
    expect(r.valid.map((v) => v.companyId)).toEqual([5251, 7]);
  });

  it("keeps an inline parent object in the body", () => {
    const parent = {
      id: 900,
      type: "SELENIUM",
      scenario_name: "Suite",
      group: true,
      project_id: 52511,
      childs: [],
    };
    const r = parse([base("S", { parent })]);
    expect(r.invalid).toEqual([]);
    expect(r.valid[0]?.body.parent).toEqual(parent);
    expect(r.valid[0]?.parentKey).toBeNull();
  });

  it("treats an empty parent object as no parent", () => {
    const r = parse([base("X", { key: "x" }), base("S", { parent: {}, parent_key: "x" })]);
    expect(problems(r)).toEqual([]);
    expect(r.valid[1]?.body).toStrictEqual({ project_id: 52511, scenario_name: "S", source_file: "S.java" });
  });
});

describe("parseSeed: bad rows are reported with line, field and reason", () => {
  it.each<[string, Record<string, unknown>, SeedOptions, string[]]>([
    [
      "missing project_id",
      base("S", { project_id: undefined }),
      {},
      ["1 project_id: missing required field"],
    ],
    [
      "missing scenario_name",
      base("S", { scenario_name: undefined }),
      {},
      ["1 scenario_name: missing required field"],
    ],
    [
      "missing source_file",
      base("S", { source_file: undefined }),
      {},
      ["1 source_file: missing required field"],
    ],
    ["empty scenario_name", base("S", { scenario_name: "" }), {}, ["1 scenario_name: must not be empty"]],
    ["blank scenario_name", base("S", { scenario_name: " \t " }), {}, ["1 scenario_name: must not be blank"]],
    ["project_id 0", base("S", { project_id: 0 }), {}, ["1 project_id: must be a positive integer, got 0"]],
    [
      "project_id -1",
      base("S", { project_id: -1 }),
      {},
      ["1 project_id: must be a positive integer, got -1"],
    ],
    [
      "missing company_id and several companies",
      base("S", { company_id: undefined }),
      {},
      ["1 company_id: missing required field (the config has more than one company)"],
    ],
    [
      "company_id as a string",
      base("S", { company_id: "5251" }),
      {},
      ["1 company_id: expected integer, got string"],
    ],
    [
      "project_id as a string",
      base("S", { project_id: "52511" }),
      {},
      ["1 project_id: expected integer, got string"],
    ],
    [
      "a fractional max_execution_time",
      base("S", { max_execution_time: 1.5 }),
      {},
      ["1 max_execution_time: expected integer, got number 1.5"],
    ],
    [
      "max_execution_time as a string",
      base("S", { max_execution_time: "60" }),
      {},
      ["1 max_execution_time: expected integer, got string"],
    ],
    [
      "a flag as a string",
      base("S", { xray_enabled: "yes" }),
      {},
      ["1 xray_enabled: expected boolean, got string"],
    ],
    [
      "an alias of the wrong type, named as written",
      base("S", { test_management_enabled: 1 }),
      {},
      ["1 test_management_enabled: expected boolean, got integer 1"],
    ],
    [
      "an alias that contradicts its wire name",
      base("S", { testrail_enabled: true, test_management_enabled: false }),
      {},
      ["1 test_management_enabled: conflicts with testrail_enabled (true vs false)"],
    ],
    ["a key of the wrong type", base("S", { key: true }), {}, ["1 key: expected string, got boolean true"]],
    ["an empty key", base("S", { key: "" }), {}, ["1 key: must not be empty"]],
    [
      "a parent_key of the wrong type",
      base("S", { parent_key: ["a"] }),
      {},
      ["1 parent_key: expected string, got array"],
    ],
    [
      "a parent without id",
      base("S", { parent: { group: true } }),
      {},
      ["1 parent.id: missing required field"],
    ],
    [
      "a parent that is not an object",
      base("S", { parent: "p" }),
      {},
      ["1 parent: expected object, got string"],
    ],
    [
      "a parent in another project",
      base("S", { parent: { id: 1, project_id: 52512 } }),
      {},
      ["1 parent.project_id: the parent is in project 52512, this row is in project 52511"],
    ],
    [
      "every bad field of the row",
      { company_id: "x", project_id: 1.5, scenario_name: 3 },
      {},
      [
        "1 company_id: expected integer, got string",
        "1 project_id: expected integer, got number 1.5",
        "1 source_file: missing required field",
        "1 scenario_name: expected string, got integer 3",
      ],
    ],
  ])("%s", (_, row, opts, expected) => {
    const r = parse([row], opts);
    expect(problems(r)).toEqual(expected);
    expect(r.valid).toEqual([]);
    expect(r.total).toBe(1);
  });

  it.each([
    ["text", "not json", "1 -: not valid JSON: "],
    ["an array", "[1,2]", "1 -: expected a JSON object, got array"],
    ["a number", "42", "1 -: expected a JSON object, got integer 42"],
    ["null", "null", "1 -: expected a JSON object, got null"],
  ])("reports a line holding %s as a whole-row problem", (_, line, prefix) => {
    const r = parse([line]);
    expect(problems(r)).toHaveLength(1);
    expect(problems(r)[0]?.startsWith(prefix)).toBe(true);
    expect(r.invalid[0]?.key).toBeNull();
  });

  it("counts blank lines but does not read them as rows", () => {
    const r = parse(["", base("A"), "   ", "", "{", base("B"), ""]);
    expect(r.total).toBe(3);
    expect(r.valid.map((v) => v.line)).toEqual([2, 6]);
    expect(r.invalid.map((p) => p.line)).toEqual([5]);
  });

  it("reads CRLF line ends", () => {
    const r = parseSeed(
      encoder.encode(`${JSON.stringify(base("A"))}\r\n\r\n${JSON.stringify(base("B"))}\r\n`),
      "ndjson",
      {},
    );
    expect(r.invalid).toEqual([]);
    expect(r.valid.map((v) => [v.line, v.scenarioName])).toEqual([
      [1, "A"],
      [3, "B"],
    ]);
  });

  it("names the row's key in its problems when it has one", () => {
    const r = parse([base("S", { key: "k", source_file: 1 })]);
    expect(r.invalid).toEqual([
      { line: 1, key: "k", field: "source_file", reason: "expected string, got integer 1" },
    ]);
  });
});

describe("parseSeed: keys and parents across rows", () => {
  it.each<[string, Record<string, unknown>[], string[]]>([
    [
      "a duplicate key, on the second and later rows only",
      [base("A", { key: "a" }), base("B"), base("C", { key: "a" }), base("D", { key: "a" })],
      ["3 key: duplicate key, first on line 1", "4 key: duplicate key, first on line 1"],
    ],
    [
      "a duplicate default key",
      [base("A"), base("A", { source_file: "other.java" })],
      ["2 key: duplicate key, first on line 1"],
    ],
    [
      "the same scenario_name twice in a project, under different keys",
      [
        base("A", { key: "a" }),
        base("B"),
        base("A", { key: "other" }),
        base("A", { key: "x", project_id: 52512 }),
      ],
      ["3 scenario_name: duplicate scenario_name in project 52511, first on line 1"],
    ],
    [
      "an unknown parent_key",
      [base("A"), base("B", { parent_key: "abc" })],
      ['2 parent_key: unknown parent_key "abc"'],
    ],
    [
      "both an inline parent and a parent_key",
      [base("A", { key: "a" }), base("B", { parent_key: "a", parent: { id: 1 } })],
      ["2 parent_key: give either an inline parent or a parent_key, not both"],
    ],
    [
      "a row that is its own parent",
      [base("A", { key: "a", parent_key: "a" })],
      ["1 parent_key: parent cycle: a -> a"],
    ],
    [
      "a two-row cycle, on each row of it",
      [base("A", { key: "a", parent_key: "b" }), base("B", { key: "b", parent_key: "a" })],
      ["1 parent_key: parent cycle: a -> b -> a", "2 parent_key: parent cycle: b -> a -> b"],
    ],
    [
      "a cycle, and the rows hanging from it",
      [
        base("X", { key: "x", parent_key: "c" }),
        base("C", { key: "c", parent_key: "d" }),
        base("D", { key: "d", parent_key: "e" }),
        base("E", { key: "e", parent_key: "c" }),
      ],
      [
        "1 parent_key: parent row 2 is invalid",
        "2 parent_key: parent cycle: c -> d -> e -> c",
        "3 parent_key: parent cycle: d -> e -> c -> d",
        "4 parent_key: parent cycle: e -> c -> d -> e",
      ],
    ],
    [
      "a parent_key row in another project",
      [base("A", { key: "a", project_id: 52512 }), base("B", { parent_key: "a" })],
      ["2 parent_key: parent_key row is in project 52512, this row is in project 52511"],
    ],
    [
      "a parent_key row in another company",
      [base("A", { key: "a", company_id: 1 }), base("B", { parent_key: "a" })],
      ["2 parent_key: parent_key row is in company 1, this row is in company 5251"],
    ],
    [
      "children and grandchildren of an invalid row",
      [
        base("P", { key: "p", source_file: "" }),
        base("C", { key: "c", parent_key: "p" }),
        base("G", { parent_key: "c" }),
        base("Other"),
      ],
      [
        "1 source_file: must not be empty",
        "2 parent_key: parent row 1 is invalid",
        "3 parent_key: parent row 2 is invalid",
      ],
    ],
    [
      "a child of an invalid parent that comes later in the file",
      [base("C", { parent_key: "p" }), base("P", { key: "p", project_id: "x" })],
      ["1 parent_key: parent row 2 is invalid", "2 project_id: expected integer, got string"],
    ],
  ])("reports %s", (_, rows, expected) => {
    expect(problems(parse(rows))).toEqual(expected);
  });

  it("links a child to the first row of a duplicated key", () => {
    const r = parse([base("A", { key: "a" }), base("B", { key: "a" }), base("C", { parent_key: "a" })]);
    expect(problems(r)).toEqual(["2 key: duplicate key, first on line 1"]);
    expect(r.valid.map((v) => v.line)).toEqual([1, 3]);
  });

  it("lets a child name a parent with a numeric parent_key", () => {
    const r = parse([base("A", { key: 7 }), base("B", { parent_key: 7 })]);
    expect(r.invalid).toEqual([]);
    expect(r.valid[1]?.parentKey).toBe("7");
  });

  it("abbreviates a long cycle", () => {
    const rows = Array.from({ length: 12 }, (_, i) =>
      base(`S${i}`, { key: `k${i}`, parent_key: `k${(i + 1) % 12}` }),
    );
    const r = parse(rows);
    expect(r.invalid).toHaveLength(12);
    expect(r.invalid[0]?.reason).toBe(
      "parent cycle: k0 -> k1 -> k2 -> k3 -> k4 -> k5 -> k6 -> k7 -> k8 -> k9 -> ... (12 rows)",
    );
  });
});

describe("parseSeed: order of the valid rows", () => {
  it("keeps file order when parents come first", () => {
    const r = parse([
      base("P", { key: "p" }),
      base("A", { parent_key: "p" }),
      base("Q"),
      base("B", { parent_key: "p" }),
    ]);
    expect(r.valid.map((v) => v.line)).toEqual([1, 2, 3, 4]);
  });

  it("moves a parent to just before its first child, and keeps the rest in file order", () => {
    const r = parse([
      base("A"),
      base("C1", { key: "c1", parent_key: "p" }),
      base("B"),
      base("G", { parent_key: "c1" }),
      base("C2", { parent_key: "p" }),
      base("P", { key: "p", parent_key: "top" }),
      base("Top", { key: "top" }),
    ]);
    expect(r.invalid).toEqual([]);
    expect(r.valid.map((v) => v.scenarioName)).toEqual(["A", "Top", "P", "C1", "B", "G", "C2"]);
  });

  it("orders a 100,000-row chain written child first, without deep recursion", () => {
    const n = 100_000;
    const rows = Array.from({ length: n }, (_, i) =>
      base(`S${i}`, { key: `k${i}`, ...(i < n - 1 ? { parent_key: `k${i + 1}` } : {}) }),
    );
    const r = parse(rows);
    expect(r.invalid).toEqual([]);
    expect(r.valid).toHaveLength(n);
    expect(r.valid[0]?.key).toBe(`k${n - 1}`);
    expect(r.valid[n - 1]?.key).toBe("k0");
  });

  it("reports a 100,000-row chain under an invalid root, one problem per row", () => {
    const n = 100_000;
    const rows = Array.from({ length: n }, (_, i) =>
      base(`S${i}`, i === 0 ? { key: "k0", project_id: null } : { key: `k${i}`, parent_key: `k${i - 1}` }),
    );
    const r = parse(rows);
    expect(r.valid).toEqual([]);
    expect(r.invalid).toHaveLength(n);
    expect(r.invalid[n - 1]).toEqual({
      line: n,
      key: `k${n - 1}`,
      field: "parent_key",
      reason: `parent row ${n - 1} is invalid`,
    });
  });
});

describe("parseSeed: --skip-invalid keeps what is valid", () => {
  it("returns the valid rows beside the problems, and drops every descendant of an invalid row", () => {
    const r = parse([
      base("Good"),
      base("Bad", { key: "bad", scenario_name: undefined }),
      base("Child", { key: "child", parent_key: "bad" }),
      base("Grandchild", { parent_key: "child" }),
      base("Parent", { key: "ok" }),
      base("Kid", { parent_key: "ok" }),
    ]);
    expect(r.total).toBe(6);
    expect(r.valid.map((v) => v.line)).toEqual([1, 5, 6]);
    expect([...new Set(r.invalid.map((p) => p.line))]).toEqual([2, 3, 4]);
    expect(r.invalid.map((p) => p.key)).toEqual(["bad", "child", "52511/Grandchild"]);
  });

  it("finds the parent of a child whose parent row has a bad field, by the parent's key", () => {
    // The default key still forms from a mistyped project_id, so the child learns why it fails.
    const r = parseSeed(
      encoder.encode(
        [
          '{"project_id":"52511","scenario_name":"P","source_file":"p"}',
          '{"project_id":52511,"scenario_name":"C","source_file":"c","parent_key":"52511/P"}',
        ].join("\n"),
      ),
      "ndjson",
      { defaultCompanyId: 1 },
    );
    expect(problems(r)).toEqual([
      "1 project_id: expected integer, got string",
      "2 parent_key: parent row 1 is invalid",
    ]);
  });
});

describe("parseSeed: encoding", () => {
  const line = (name: string) => encoder.encode(`${JSON.stringify(base(name))}\n`);
  const join = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };

  it("strips a UTF-8 byte order mark", () => {
    const r = parseSeed(join(Uint8Array.of(0xef, 0xbb, 0xbf), line("A"), line("B")), "ndjson", {});
    expect(r.invalid).toEqual([]);
    expect(r.valid.map((v) => v.line)).toEqual([1, 2]);
  });

  it("reports a line that is not UTF-8 and still reads the others, non-ASCII text included", () => {
    const bad = encoder.encode('{"project_id":52511,"scenario_name":"caf\u00e9","source_file":"x"}\n');
    const latin1 = bad.map((b) => b); // copy, then turn the two-byte é into Latin-1 0xE9 plus a stray byte
    latin1[latin1.indexOf(0xc3)] = 0xe9;
    const r = parseSeed(join(line("Ünlü"), latin1, line("Şehir")), "ndjson", { defaultCompanyId: 1 });
    expect(problems(r)).toEqual(["2 -: unreadable encoding: not valid UTF-8"]);
    expect(r.valid.map((v) => [v.line, v.scenarioName])).toEqual([
      [1, "Ünlü"],
      [3, "Şehir"],
    ]);
  });
});
