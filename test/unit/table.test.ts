import { describe, expect, it } from "vitest";
import { formatTable } from "../../src/commands/table.js";

describe("formatTable", () => {
  it("aligns columns and shows NULL for missing values", () => {
    const out = formatTable([
      { id: 1, name: "a" },
      { id: 22, name: null },
    ]).split("\n");
    expect(out).toEqual(["id  name", "--  ----", "1   a", "22  NULL"]);
  });

  it("shows the columns of every row, not only of the first", () => {
    const out = formatTable([
      { company_id: 1, status: "never synced" },
      { company_id: 2, status: "ok", run_id: 7 },
    ]);
    expect(out.split("\n")[0]).toBe("company_id  status        run_id");
    expect(out).toContain("NULL");
  });

  it("says so when there are no rows", () => {
    expect(formatTable([])).toBe("(no rows)");
  });

  it("cuts long values to the width", () => {
    expect(formatTable([{ v: "x".repeat(100) }], 10).split("\n")[2]).toBe(`${"x".repeat(9)}…`);
  });
});
