/** File names to formats, problem lines, and the example seed files read from disk. */
import { describe, expect, it } from "vitest";
import { SeedFormatError } from "../../src/seed/errors.js";
import { formatFromPath, formatProblem } from "../../src/seed/format.js";
import { readSeedFile } from "../../src/seed/read.js";

describe("formatFromPath", () => {
  it.each([
    ["scenarios.ndjson", "ndjson"],
    ["dir.v2/scenarios.JSONL", "ndjson"],
    ["./scenarios.json", "json"],
    ["C:\\seed\\Scenarios.CSV", "csv"],
  ])("reads %s as %s", (path, format) => {
    expect(formatFromPath(path)).toBe(format);
  });

  it.each(["scenarios.txt", "scenarios", "seed.d/scenarios", "scenarios.csv.gz"])("rejects %s", (path) => {
    expect(() => formatFromPath(path)).toThrow(SeedFormatError);
    expect(() => formatFromPath(path)).toThrow(/use \.ndjson, \.jsonl, \.json or \.csv/);
  });
});

describe("formatProblem", () => {
  it.each([
    [
      { line: 14, key: "k", field: "parent_key", reason: 'unknown parent_key "abc"' },
      'scenarios.csv:14: parent_key: unknown parent_key "abc"',
    ],
    [
      { line: 3, key: null, field: null, reason: "unreadable encoding: not valid UTF-8" },
      "scenarios.csv:3: unreadable encoding: not valid UTF-8",
    ],
    [
      { line: 1, key: null, field: null, reason: 'not valid JSON: Unexpected token\n"x"' },
      'scenarios.csv:1: not valid JSON: Unexpected token\\n"x"',
    ],
  ])("prints %o on one line", (problem, expected) => {
    expect(formatProblem("scenarios.csv", problem)).toBe(expected);
  });
});

describe("readSeedFile", () => {
  it.each(["examples/scenarios.ndjson", "examples/scenarios.csv"])(
    "reads %s without problems, parents first",
    async (path) => {
      const file = await readSeedFile(path, {});
      const rows = new Map([...file.rows()].map((row) => [row.index, row]));
      const valid = [...file.check.order].map((i) => rows.get(i)!);
      expect(file.check.invalid).toEqual([]);
      expect(file.check.total).toBe(6);
      expect(valid).toHaveLength(6);
      expect(new Set(valid.map((v) => v.companyId))).toEqual(new Set([5251]));
      const seen = new Set<string>();
      for (const row of valid) {
        if (row.parentKey !== null) expect(seen.has(row.parentKey)).toBe(true);
        seen.add(row.key);
      }
      expect(valid.filter((v) => v.parentKey !== null)).toHaveLength(3);
    },
  );

  it("rejects an unknown extension before reading", async () => {
    await expect(readSeedFile("does-not-exist.xlsx", {})).rejects.toThrow(SeedFormatError);
  });
});
