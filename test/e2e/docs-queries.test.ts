/**
 * Every SQL example of README.md and docs/ runs against fresh `tas-sync demo` databases, one
 * SQLite and one PostgreSQL: a `sql` block on both stores, a `sqlite` block on SQLite, a
 * `postgresql` block on PostgreSQL, and the SQL of a `tas-sync query "..."` line on both. Each
 * statement must answer at least one row. The excuses: a table it reads is empty on demo data
 * (the demo pushes nothing and its sync rejects nothing), which the test checks rather than
 * takes on trust; or a health check whose comment says it answers no row when all is well.
 * A `duckdb` block runs in DuckDB on what `tas-sync export` wrote from the SQLite demo database:
 * the DuckDB file opened as the database, beside the folder `tas-export/` of Parquet files.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, ROOT } from "../support/built-cli.js";
import { TestDatabases } from "../support/postgres.js";

type Store = "sqlite" | "postgres" | "duckdb";
const RUNS_ON: Record<string, Store[]> = {
  sql: ["sqlite", "postgres"],
  sqlite: ["sqlite"],
  postgresql: ["postgres"],
  duckdb: ["duckdb"],
};

interface Example {
  where: string;
  sql: string;
  stores: Store[];
}

/**
 * The statements of every sql/sqlite/postgresql block of one markdown file, and the SQL of each
 * `tas-sync query "..."` line of its sh blocks (run on both stores), with file:line.
 */
function examplesIn(path: string): Example[] {
  const text = readFileSync(path, "utf8");
  const lineOf = (index: number | undefined) => text.slice(0, index).split("\n").length;
  const out: Example[] = [];
  for (const m of text.matchAll(/^```(sql|sqlite|postgresql|duckdb)\n([\s\S]*?)^```/gm)) {
    const stores = RUNS_ON[m[1] ?? ""] ?? [];
    for (const sql of (m[2] ?? "").split(/;\s*(?:\n|$)/).map((s) => s.trim()))
      if (sql !== "") out.push({ where: `${relative(ROOT, path)}:${lineOf(m.index)}`, sql, stores });
  }
  for (const m of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm))
    for (const q of (m[1] ?? "").matchAll(/tas-sync query [^"\n]*"((?:SELECT|WITH)[^"]*)"/g))
      out.push({
        where: `${relative(ROOT, path)}:${lineOf((m.index ?? 0) + (q.index ?? 0))}`,
        sql: q[1] ?? "",
        stores: ["sqlite", "postgres"],
      });
  return out;
}

/** A check that finds nothing when all is well says so in a comment: it must run, not answer. */
const answersNoRowWhenHealthy = (sql: string) => /^-- answers no row when /m.test(sql);

const markdown = [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(ROOT, "docs", f)),
];
const examples = markdown.flatMap(examplesIn);

let dir: string;
let sqlite: Database.Database;
let postgres: pg.Client;
let duckdb: { instance: DuckDBInstance; connection: DuckDBConnection } | undefined;
const databases = new TestDatabases();

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-docs-sql-"));
  const path = join(dir, "demo.db");
  const pgUrl = await databases.create();
  for (const db of [path, pgUrl]) {
    const demo = await cli(["demo", "--db", db, "--log-level", "warn"]);
    if (demo.code !== 0) throw new Error(`demo --db ${db} exited ${demo.code}: ${demo.stderr}`);
  }
  sqlite = new Database(path, { readonly: true });
  postgres = new pg.Client({ connectionString: pgUrl });
  await postgres.connect();
  for (const [format, out] of [
    ["parquet", join(dir, "tas-export")],
    ["duckdb", join(dir, "tas.duckdb")],
  ] as const) {
    const exported = await cli([
      "export",
      "--format",
      format,
      "--out",
      out,
      "--db",
      path,
      "--log-level",
      "warn",
    ]);
    if (exported.code !== 0)
      throw new Error(`export --format ${format} exited ${exported.code}: ${exported.stderr}`);
  }
  const instance = await DuckDBInstance.create(join(dir, "tas.duckdb"), { access_mode: "READ_ONLY" });
  duckdb = { instance, connection: await instance.connect() };
  await duckdb.connection.run(`SET file_search_path = '${dir}'`);
}, 180_000);
afterAll(async () => {
  duckdb?.connection.closeSync();
  duckdb?.instance.closeSync();
  sqlite?.close();
  await postgres?.end();
  await databases.dropAll();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function rowsOf(store: Store, sql: string): Promise<unknown[]> {
  if (store === "sqlite") return sqlite.prepare(sql).all();
  if (store === "duckdb")
    return (await (duckdb as NonNullable<typeof duckdb>).connection.runAndReadAll(sql)).getRows();
  return (await postgres.query(sql)).rows;
}

/** Tables and views the statement names that hold no row in that store's demo database. */
async function emptyTablesIn(store: Store, sql: string): Promise<string[]> {
  // The export holds the SQLite demo database's rows: its empty tables are SQLite's.
  if (store === "duckdb") return emptyTablesIn("sqlite", sql);
  const names = (
    store === "sqlite"
      ? (sqlite.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all() as {
          name: string;
        }[])
      : (
          await postgres.query<{ name: string }>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
          )
        ).rows
  ).map((r) => r.name);
  const words = new Set(sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
  const empty: string[] = [];
  for (const n of names.filter((n) => words.has(n))) {
    const [row] = (await rowsOf(store, `SELECT count(*) AS n FROM "${n}"`)) as { n: number | string }[];
    if (Number(row?.n) === 0) empty.push(n);
  }
  return empty;
}

describe("SQL examples of the README and docs/ on fresh demo databases", () => {
  it("finds the examples, on both stores", () => {
    expect(examples.filter((e) => e.stores.includes("sqlite")).length).toBeGreaterThanOrEqual(15);
    expect(examples.filter((e) => e.stores.includes("postgres")).length).toBeGreaterThanOrEqual(15);
    expect(new Set(examples.map((e) => e.where.split(":")[0])).size).toBeGreaterThanOrEqual(2);
  });

  const cases = examples.flatMap((e) => e.stores.map((store) => [e.where, store, e.sql] as const));
  it.for(cases)("%s on %s runs and answers", async ([where, store, sql]) => {
    const rows = await rowsOf(store, sql);
    if (rows.length === 0 && !answersNoRowWhenHealthy(sql)) {
      // No row is fine only when the demo has none of what the statement reads.
      expect(
        await emptyTablesIn(store, sql),
        `${where}: no row on ${store}, yet every table it reads has rows:\n${sql}`,
      ).not.toEqual([]);
    }
  });
});
