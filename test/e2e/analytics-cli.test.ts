/**
 * The analysts' commands as people run them (the built CLI): dbt-sources writes its file from
 * the config's schedules without the service's secrets; bad flags of dbt-sources and export get
 * one clear line and exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;
let config: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-analytics-cli-"));
  config = join(dir, "tas-sync.config.json");
  // The token is an env: secret left unset: neither command may need it.
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: "https://tas.example.com",
      auth: { token: "env:TAS_TEST_UNSET_TOKEN" },
      database: join(dir, "tas.db"),
      sync: { every: "1h" },
      companies: [{ id: 7, every: "30m", reportIds: [1] }, { id: 8 }],
    }),
  );
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tas-sync dbt-sources", () => {
  it("writes the sources of the config's store with each company's thresholds", async () => {
    const out = join(dir, "sources.yml");
    const run = await cli(["dbt-sources", "--out", out, "--config", config]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^wrote .*sources\.yml: source tas_sync, \d+ tables and views\n$/);
    const doc = parse(readFileSync(out, "utf8")) as {
      sources: { schema: string; tables: { name: string; freshness?: unknown }[] }[];
    };
    const source = doc.sources[0];
    expect(source?.schema).toBe("main");
    expect(source?.tables.find((t) => t.name === "sync_runs_company_7")?.freshness).toEqual({
      warn_after: { count: 1, period: "hour" },
      error_after: { count: 90, period: "minute" },
      filter: "company_id = 7 and status in ('succeeded', 'partial')",
    });
    expect(source?.tables.find((t) => t.name === "sync_runs_company_8")?.freshness).toMatchObject({
      warn_after: { count: 2, period: "hour" },
      error_after: { count: 3, period: "hour" },
    });
  });

  it("takes the config's dbt thresholds over the schedules, and the flags over the config", async () => {
    const withDbt = join(dir, "with-dbt.json");
    const base = JSON.parse(readFileSync(config, "utf8"));
    writeFileSync(withDbt, JSON.stringify({ ...base, dbt: { warnAfter: "2h", errorAfter: "1d" } }));
    const freshnessOf = async (...flags: string[]) => {
      const run = await cli(["dbt-sources", "--config", withDbt, ...flags]);
      expect(run.code).toBe(0);
      const doc = parse(run.stdout) as { sources: { tables: { name: string; freshness?: unknown }[] }[] };
      return doc.sources[0]?.tables.find((t) => t.name === "sync_runs_company_7")?.freshness;
    };
    expect(await freshnessOf()).toMatchObject({
      warn_after: { count: 2, period: "hour" },
      error_after: { count: 1, period: "day" },
    });
    expect(await freshnessOf("--error-after", "6h")).toMatchObject({
      warn_after: { count: 2, period: "hour" },
      error_after: { count: 6, period: "hour" },
    });
  });

  it.each([
    [
      ["--warn-after", "3h", "--error-after", "2h"],
      /warn threshold \(3h\) is after the error threshold \(2h\)/,
    ],
    [["--warn-after", "soon"], /--warn-after expects a duration/],
    [["--schema", "main; drop"], /--schema expects a name/],
  ])("refuses %j with one line and exit 2", async (flags, message) => {
    const run = await cli(["dbt-sources", "--config", config, ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stdout).toBe("");
  });
});

describe("tas-sync export", () => {
  it.each([
    [["--out", "x"], /missing --format \(parquet or duckdb\)/],
    [["--format", "csv", "--out", "x"], /--format expects parquet or duckdb, got "csv"/],
    [["--format", "parquet"], /missing --out PATH \(a folder\)/],
    [
      ["--format", "parquet", "--out", "x", "--tables", "plan,sync_runs"],
      /no table or view "plan" \(did you mean plans\?\)/,
    ],
  ])("refuses %j with one clear line and exit 2", async (flags, message) => {
    const run = await cli(["export", "--config", config, ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("refuses an --out that cannot take the format", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const parquet = await cli(["export", "--config", config, "--format", "parquet", "--out", file]);
    expect([parquet.code, parquet.stderr]).toEqual([
      2,
      expect.stringMatching(/is a file: Parquet needs a folder/),
    ]);
    const duck = await cli(["export", "--config", config, "--format", "duckdb", "--out", dir]);
    expect([duck.code, duck.stderr]).toEqual([
      2,
      expect.stringMatching(/is a folder: DuckDB needs a file name/),
    ]);
    const nowhere = await cli([
      "export",
      "--config",
      config,
      "--format",
      "duckdb",
      "--out",
      join(dir, "no", "t.duckdb"),
    ]);
    expect([nowhere.code, nowhere.stderr]).toEqual([2, expect.stringMatching(/does not exist/)]);
  });

  it("says so when the database does not exist, and writes nothing", async () => {
    const out = join(dir, "never");
    const run = await cli(["export", "--format", "parquet", "--out", out, "--db", join(dir, "missing.db")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing\.db/);
  });
});
