/**
 * `query` on a real SQLite file of 200,000 rows: every format streams (bounded pending output,
 * many small writes, the right number of lines), writes are refused in plain words, a slow or
 * vanished reader and Ctrl-C are handled.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutputFormat } from "../../src/commands/format/defaults.js";
import { runQuery } from "../../src/commands/query-run.js";
import { databaseTarget } from "../../src/config/index.js";
import { runCli } from "./push-harness.js";

const ROWS = 200_000;
let dir: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-query-"));
  db = join(dir, "big.db");
  const conn = new Database(db);
  conn.exec("CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, note TEXT)");
  const insert = conn.prepare("INSERT INTO big (name, note) VALUES (?, ?)");
  conn.transaction(() => {
    for (let i = 0; i < ROWS; i++) insert.run(`name ${i} 名前`, i % 3 ? null : 'a, "quoted"\nnote');
  })();
  conn.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A reader that takes each chunk `delayMs` later, like a pipe to a slower process. */
class SlowReader extends Writable {
  text: string[] = [];
  writes = 0;
  maxPending = 0;
  constructor(
    private readonly keep = true,
    private readonly delayMs = 0,
  ) {
    super({ highWaterMark: 16 * 1024, decodeStrings: false });
  }
  override _write(chunk: string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.writes++;
    this.maxPending = Math.max(this.maxPending, this.writableLength);
    if (this.keep) this.text.push(chunk);
    setTimeout(done, this.delayMs);
  }
}

async function query(format: OutputFormat, sql = "SELECT * FROM big ORDER BY id") {
  const reader = new SlowReader();
  const code = await runQuery({ sql, database: databaseTarget(db), format, output: reader });
  return { code, reader, text: reader.text.join("") };
}

describe("query streams large results", () => {
  it.each<[OutputFormat, string, number]>([
    ["table", "\n", ROWS + 2],
    ["csv", "\r\n", ROWS + 1], // a newline inside a quoted note is a bare LF
    ["ndjson", "\n", ROWS],
  ])("writes %s in many chunks, every row on its line", async (format, eol, lines) => {
    const { code, reader, text } = await query(format);
    expect(code).toBe(0);
    expect(text.split(eol).length - 1).toBe(lines);
    expect(reader.writes).toBeGreaterThan(50); // streamed, not one string at the end
  });

  it("waits for a slow reader instead of piling output up in memory", async () => {
    // 30,000 rows are ~1.5 MB of table; the reader takes a 64 KiB chunk every 20 ms.
    const reader = new SlowReader(false, 20);
    const sql = "SELECT * FROM big LIMIT 30000";
    expect(await runQuery({ sql, database: databaseTarget(db), format: "table", output: reader })).toBe(0);
    expect(reader.maxPending).toBeLessThanOrEqual(128 * 1024); // about one chunk, never the lot
    expect(reader.writes).toBeGreaterThan(10);
  });

  it("writes json as one array that parses to every row", async () => {
    const { code, text } = await query("json");
    expect(code).toBe(0);
    const rows = JSON.parse(text) as { id: number; note: string | null }[];
    expect(rows).toHaveLength(ROWS);
    expect(rows[ROWS - 1]).toEqual({ id: ROWS, name: `name ${ROWS - 1} 名前`, note: null });
    expect(rows[0]?.note).toBe('a, "quoted"\nnote');
  });

  it("prints 200,000 rows through the CLI as a table: header, rule and one line each", async () => {
    const r = await runCli(["query", "--db", db, "--max-rows", "0", "SELECT id, name FROM big"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(ROWS + 2);
    expect(r.out[0]).toBe("id    name");
    // Widths come from the first 1000 rows: a later, longer name is cut; a number never is.
    expect(r.out.at(-1)).toBe(`${ROWS}  name ${ROWS - 1} …`);
  });

  it("stops quietly when the reader goes away (| head)", async () => {
    const reader = new SlowReader();
    let first = true;
    reader._write = (_chunk, _enc, done) => {
      if (first) {
        first = false;
        done();
        return;
      }
      done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    };
    reader.on("error", () => {}); // what bin.ts does for stdout
    const code = await runQuery({
      sql: "SELECT * FROM big",
      database: databaseTarget(db),
      format: "csv",
      output: reader,
    });
    expect(code).toBe(0);
  });

  it("stops with 130 between two chunks when Ctrl-C is pressed", async () => {
    const stop = new AbortController();
    const reader = new SlowReader(false);
    reader.once("drain", () => stop.abort());
    const code = await runQuery({
      sql: "SELECT * FROM big",
      database: databaseTarget(db),
      format: "ndjson",
      output: reader,
      signal: stop.signal,
    });
    expect(code).toBe(130);
    expect(reader.writes).toBeLessThan(10);
  });
});

describe("query refuses what it must not run", () => {
  it.each([
    ["DELETE FROM big", "query is read-only: DELETE statements are not allowed (use SELECT, WITH or PRAGMA)"],
    [
      "INSERT INTO big (name) VALUES ('x') RETURNING id",
      "query is read-only: INSERT statements are not allowed (use SELECT, WITH or PRAGMA)",
    ],
    ["DROP TABLE big", "query is read-only: DROP statements are not allowed (use SELECT, WITH or PRAGMA)"],
    ["SELEC 1", 'query failed: near "SELEC": syntax error'],
    ["SELECT 1; SELECT 2", "query failed: the SQL text holds more than one statement (run one at a time)"],
  ])("%s: exit 2 with one line on stderr", async (sql, message) => {
    const r = await runCli(["query", "--db", db, sql]);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.stderr).toBe(`tas-sync query: ${message}\n`);
    const conn = new Database(db, { readonly: true });
    expect(conn.prepare("SELECT count(*) AS n FROM big").get()).toEqual({ n: ROWS });
    conn.close();
  });

  it.each([
    [["--format", "xml"], '--format expects one of table, csv, json, ndjson, got "xml"'],
    [["--format", "csv", "--json"], "--json means --format ndjson: it cannot be combined with --format csv"],
    [["--max-width", "2"], "--max-width must be at least 4, got 2"],
    [["--max-rows=-1"], "--max-rows must be at least 0, got -1"],
    [
      ["--timeout", "5"],
      '--timeout expects a duration of at least 1s like "30s" or "5m", or 0 for none, got "5"',
    ],
  ])("rejects the flags %j", async (flags, message) => {
    const r = await runCli(["query", "--db", db, ...flags, "SELECT 1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tas-sync query: ${message}\n`);
  });

  it("writes formulas inert in csv, numbers as they are, and exactly with --raw-csv", async () => {
    const sql =
      "SELECT '=HYPERLINK(\"http://x\")' AS name, '+cmd|'' /C calc''!A0' AS other, -5 AS n, '-5' AS t";
    const safe = await runCli(["query", "--db", db, "--format", "csv", sql]);
    expect(safe.out.map((l) => l.replace(/\r$/, ""))).toEqual([
      "name,other,n,t",
      `"'=HYPERLINK(""http://x"")",'+cmd|' /C calc'!A0,-5,-5`,
    ]);
    const raw = await runCli(["query", "--db", db, "--format", "csv", "--raw-csv", sql]);
    expect(raw.out.map((l) => l.replace(/\r$/, ""))).toEqual([
      "name,other,n,t",
      `"=HYPERLINK(""http://x"")",+cmd|' /C calc'!A0,-5,-5`,
    ]);
  });

  it("keeps --json as ndjson", async () => {
    const r = await runCli(["query", "--db", db, "--json", "SELECT id FROM big WHERE id <= 2"]);
    expect(r.out.map((l) => JSON.parse(l))).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
