/**
 * Every SQL statement of README.md's "Example queries" runs against a fresh `tas-sync demo`
 * database and answers at least one row. The one excuse for no row: a table the statement
 * reads is empty on demo data (the demo pushes nothing and its sync rejects nothing), which
 * the test checks rather than takes on trust.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, ROOT } from "../support/built-cli.js";

/** The ```sql blocks of one section of a markdown text, split into statements. */
function sqlStatements(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf("\n## ", start + heading.length + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  return blocks.flatMap((b) =>
    b
      .split(/;\s*(?:\n|$)/)
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );
}

const statements = sqlStatements(readFileSync(join(ROOT, "README.md"), "utf8"), "## Example queries");
let dir: string;
let db: Database.Database;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-readme-"));
  const path = join(dir, "demo.db");
  const demo = await cli(["demo", "--db", path, "--log-level", "warn"]);
  if (demo.code !== 0) throw new Error(`demo exited ${demo.code}: ${demo.stderr}`);
  db = new Database(path, { readonly: true });
}, 120_000);
afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Tables and views the statement names that hold no row in the demo database. */
function emptyTablesIn(sql: string): string[] {
  const names = (
    db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  const words = new Set(sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
  return names
    .filter((n) => words.has(n))
    .filter((n) => (db.prepare(`SELECT count(*) AS n FROM "${n}"`).get() as { n: number }).n === 0);
}

describe("README example queries on a fresh demo database", () => {
  it("finds the example queries", () => {
    expect(statements.length).toBeGreaterThanOrEqual(10);
  });

  it.for(statements.map((sql, i) => [i + 1, sql] as const))("statement %i runs and answers", ([, sql]) => {
    const rows = db.prepare(sql).all();
    if (rows.length === 0) {
      // No row is fine only when the demo has none of what the statement reads.
      expect(emptyTablesIn(sql), `no row, yet every table it reads has rows:\n${sql}`).not.toEqual([]);
    }
  });
});
