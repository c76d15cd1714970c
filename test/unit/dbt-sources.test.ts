/** The dbt source properties (pure): thresholds, the YAML emitter, and the document against dbt's JSON schema. */
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { dbtSources, freshnessRule, thresholds } from "../../src/analytics/dbt-sources.js";
import { scalar, toYaml, type YamlValue } from "../../src/analytics/yaml.js";
import { TABLE_DOCS, VIEW_DOCS } from "../../src/tables/descriptions.js";
import { relationsOf } from "../../src/tables/relations.js";

const schema = JSON.parse(
  readFileSync(new URL("../support/dbt/sources.schema.json", import.meta.url), "utf8"),
);
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);

const MIN = 60_000;
const HOUR = 60 * MIN;
type Doc = {
  version: number;
  sources: { name: string; schema: string; database?: string; tables: Table[] }[];
};
type Table = {
  name: string;
  identifier?: string;
  description: string;
  loaded_at_field?: string;
  freshness?: { warn_after: unknown; error_after: unknown; filter?: string };
  columns?: { name: string; description: string; data_tests?: unknown[] }[];
};

const input = (over: Partial<Parameters<typeof dbtSources>[0]> = {}) => ({
  dialect: "postgres" as const,
  sourceName: "tas_sync",
  database: "mirror",
  schema: "public",
  companies: [
    { companyId: 1, everyMs: 15 * MIN, staleAfterMs: 45 * MIN },
    { companyId: 2, everyMs: 24 * HOUR, staleAfterMs: 72 * HOUR },
  ],
  reports: true,
  ...over,
});

describe("freshness thresholds", () => {
  it.each([
    [15 * MIN, { count: 15, period: "minute" }],
    [2 * HOUR, { count: 2, period: "hour" }],
    [90 * MIN, { count: 90, period: "minute" }],
    [3 * 24 * HOUR, { count: 3, period: "day" }],
    [36 * HOUR, { count: 36, period: "hour" }],
    [90_500, { count: 2, period: "minute" }],
  ])("writes %d ms as %o", (ms, rule) => {
    expect(freshnessRule(ms)).toEqual(rule);
  });

  it("warns after two periods and errors when status calls the company stale", () => {
    expect(thresholds({ everyMs: 15 * MIN, staleAfterMs: 45 * MIN }, {})).toEqual({
      warnMs: 30 * MIN,
      errorMs: 45 * MIN,
    });
    // A staleAfter shorter than two periods caps the warning.
    expect(thresholds({ everyMs: HOUR, staleAfterMs: 90 * MIN }, {})).toEqual({
      warnMs: 90 * MIN,
      errorMs: 90 * MIN,
    });
  });

  it("takes given thresholds over the schedule, and refuses a warning after the error", () => {
    expect(
      thresholds(
        { everyMs: HOUR, staleAfterMs: 3 * HOUR },
        { warnAfterMs: 5 * HOUR, errorAfterMs: 6 * HOUR },
      ),
    ).toEqual({ warnMs: 5 * HOUR, errorMs: 6 * HOUR });
    expect(() => thresholds({ everyMs: HOUR, staleAfterMs: 3 * HOUR }, { warnAfterMs: 4 * HOUR })).toThrow(
      /warn threshold .* after the error threshold/,
    );
  });
});

describe("the YAML emitter", () => {
  it.each([
    "yes",
    "No",
    "null",
    "~",
    "true",
    "123",
    "1e3",
    "",
    " lead",
    "a: b",
    "#x",
    "- x",
    "'q'",
    '"q"',
    "é",
    "a\nb",
  ])("quotes %j so that it reads back as the same string", (text) => {
    expect(parse(`k: ${scalar(text)}\n`)).toEqual({ k: text });
  });

  it("writes any document of plain data that a YAML parser reads back equal", () => {
    const key = fc.string({ minLength: 1, maxLength: 12 });
    const leaf = fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.boolean(), fc.constant(null));
    const { tree } = fc.letrec<{ tree: YamlValue }>((tie) => ({
      tree: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("tree"), { maxLength: 4 }),
        fc.dictionary(key, tie("tree"), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, tree, { minKeys: 1, maxKeys: 4 }), (doc) => {
        expect(parse(toYaml(doc))).toEqual(doc);
      }),
      { numRuns: 300 },
    );
  });
});

describe.each(["sqlite", "postgres"] as const)("the dbt sources of %s", (dialect) => {
  const doc = parse(
    toYaml(
      dbtSources(
        input({ dialect, ...(dialect === "sqlite" ? { database: undefined, schema: "main" } : {}) }),
      ),
    ),
  ) as Doc;
  const source = doc.sources[0];
  const tables = source?.tables ?? [];

  it("passes dbt's JSON schema of property files", () => {
    const ok = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("is dbt-sqlite's naming on SQLite (schema main, no database) and the URL's database on PostgreSQL", () => {
    expect(source?.schema).toBe(dialect === "sqlite" ? "main" : "public");
    expect(source?.database).toBe(dialect === "sqlite" ? undefined : "mirror");
  });

  it("names every table and view of the schema, each column with the table reference's words", () => {
    const relations = relationsOf(dialect);
    for (const relation of relations) {
      const docs = TABLE_DOCS[relation.name] ?? VIEW_DOCS[relation.name];
      if (!docs) continue;
      const table = tables.find((t) => t.name === relation.name);
      expect(table, relation.name).toBeDefined();
      expect(table?.description).toBe(docs.summary);
      expect(table?.columns?.map((c) => c.name)).toEqual(relation.columns.map((c) => c.name));
      for (const c of table?.columns ?? [])
        expect(c.description, `${relation.name}.${c.name}`).toBe(docs.columns[c.name]);
    }
    const documented = relations.filter((r) => TABLE_DOCS[r.name] ?? VIEW_DOCS[r.name]).length;
    expect(tables.filter((t) => !t.identifier)).toHaveLength(documented);
  });

  it("tests single keys unique and not null, and each column of a composite key not null", () => {
    const col = (t: string, c: string) =>
      tables.find((x) => x.name === t)?.columns?.find((x) => x.name === c);
    expect(col("plans", "id")?.data_tests).toEqual(["unique", "not_null"]);
    expect(col("v_plans", "id")?.data_tests).toEqual(["unique", "not_null"]);
    expect(col("plan_days_of_week", "day_number")?.data_tests).toEqual(["not_null"]);
    expect(col("plan_days_of_week", "plan_id")?.data_tests).toEqual([
      "not_null",
      { relationships: { to: "source('tas_sync', 'plans')", field: "id" } },
    ]);
    expect(col("plans", "plan_name")?.data_tests).toBeUndefined();
  });

  it("checks freshness per company from its schedule, and the whole mirror by the most frequent one", () => {
    const byName = (n: string) => tables.find((t) => t.name === n);
    expect(byName("sync_runs_company_1")).toMatchObject({
      identifier: "sync_runs",
      loaded_at_field: "finished_at",
      freshness: {
        warn_after: { count: 30, period: "minute" },
        error_after: { count: 45, period: "minute" },
        filter: "company_id = 1 and status in ('succeeded', 'partial')",
      },
    });
    expect(byName("sync_runs_company_2")?.freshness).toMatchObject({
      warn_after: { count: 2, period: "day" },
      error_after: { count: 3, period: "day" },
    });
    expect(byName("v_plans")).toMatchObject({
      loaded_at_field: "last_seen_at",
      freshness: {
        warn_after: { count: 30, period: "minute" },
        error_after: { count: 45, period: "minute" },
      },
    });
    expect(byName("plans")?.freshness).toBeUndefined();
  });
});

it("leaves scheduled_reports without a freshness check when no company has reports", () => {
  const doc = dbtSources(input({ reports: false })) as unknown as Doc;
  expect(doc.sources[0]?.tables.find((t) => t.name === "scheduled_reports")?.freshness).toBeUndefined();
});

it("refuses a config without companies: freshness needs a schedule", () => {
  expect(() => dbtSources(input({ companies: [] }))).toThrow(/no company/);
});
