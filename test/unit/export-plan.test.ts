/** What `tas-sync export` writes (pure): types, the values of either store, the relations. */
import { describe, expect, it } from "vitest";
import {
  cell,
  createSql,
  duckType,
  exportRelations,
  selectSql,
  UNREADABLE,
} from "../../src/analytics/export-plan.js";
import { TABLE_DOCS, VIEW_DOCS } from "../../src/tables/descriptions.js";

describe("export types", () => {
  it.each([
    ["bigint", "BIGINT"],
    ["integer", "INTEGER"],
    ["boolean", "BOOLEAN"],
    ["timestamp(3) with time zone", "TIMESTAMPTZ"],
    ["double precision", "DOUBLE"],
    ["real", "DOUBLE"],
    ["text", "VARCHAR"],
    ["?", "VARCHAR"],
  ])("writes a PostgreSQL %s column as %s", (pg, duck) => {
    expect(duckType(pg)).toBe(duck);
  });

  it("gives plans real types: 64-bit ids, flags, timestamps", () => {
    const plans = exportRelations(["plans"])[0];
    const typeOf = Object.fromEntries(plans?.columns.map((c) => [c.name, c.type]) ?? []);
    expect(typeOf).toMatchObject({
      id: "BIGINT",
      company_id: "BIGINT",
      enabled: "BOOLEAN",
      first_seen_at: "TIMESTAMPTZ",
      raw_json: "VARCHAR",
    });
    expect(selectSql(plans as NonNullable<typeof plans>)).toMatch(
      /^SELECT "id", "company_id", .* FROM "plans"$/,
    );
    expect(createSql(plans as NonNullable<typeof plans>)).toMatch(
      /^CREATE TABLE "plans" \("id" BIGINT, .*"deleted_at" TIMESTAMPTZ\)$/,
    );
  });
});

describe("a stored value as its column's type", () => {
  it.each([
    // SQLite's 0/1 and PostgreSQL's booleans
    [1n, "BOOLEAN", true],
    [0n, "BOOLEAN", false],
    [true, "BOOLEAN", true],
    [2n, "BOOLEAN", UNREADABLE],
    // 64-bit integers stay exact
    [9_007_199_254_740_993n, "BIGINT", 9_007_199_254_740_993n],
    [42, "BIGINT", 42n],
    ["42", "BIGINT", 42n],
    [1.5, "BIGINT", UNREADABLE],
    [7n, "INTEGER", 7],
    [2n ** 40n, "INTEGER", UNREADABLE],
    [3n, "DOUBLE", 3],
    // ISO 8601 text (SQLite) and PostgreSQL's text, to microseconds since the epoch
    ["2025-03-01T10:00:00.250Z", "TIMESTAMPTZ", 1_740_823_200_250_000n],
    [new Date("1970-01-01T00:00:01Z"), "TIMESTAMPTZ", 1_000_000n],
    ["soon", "TIMESTAMPTZ", UNREADABLE],
    ["ünï \u0000 text", "VARCHAR", "ünï \u0000 text"],
    [12n, "VARCHAR", "12"],
    [null, "BIGINT", null],
    [undefined, "VARCHAR", null],
  ] as const)("reads %o as %s: %o", (value, type, expected) => {
    expect(cell(value, type)).toBe(expected);
  });
});

describe("the relations exported", () => {
  it("are every documented table and view, tables first", () => {
    const names = exportRelations().map((r) => r.name);
    expect(names).toEqual(
      [...Object.keys(TABLE_DOCS), ...Object.keys(VIEW_DOCS)].filter((n) => names.includes(n)),
    );
    expect(names).toEqual(
      expect.arrayContaining(["plans", "plan_versions", "v_plan_versions", "v_plans", "sync_runs"]),
    );
    expect(names.length).toBe(Object.keys(TABLE_DOCS).length + Object.keys(VIEW_DOCS).length);
  });

  it("are those --tables names, in the reference's order", () => {
    expect(exportRelations(["v_plans", "plans"]).map((r) => r.name)).toEqual(["plans", "v_plans"]);
  });

  it("refuse an unknown name with the closest known one", () => {
    expect(() => exportRelations(["plan"])).toThrow(/no table or view "plan" \(did you mean plans\?\)/);
    expect(() => exportRelations(["plans; DROP TABLE plans"])).toThrow(/no table or view/);
  });
});
