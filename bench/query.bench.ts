/**
 * npm run bench:query — what running `query` on SQLite in a process of its own (so that a stop
 * or the timeout can kill it) costs against running it in-process, as before. One SQLite file of
 * BENCH_QUERY_ROWS rows (default 1,000,000; an id, a name and a note), exported as CSV to a sink
 * that drops the text: the baseline is what query did before (better-sqlite3 iterated in this
 * process, rows yielded to the same loop and CSV sink); the measured side is runQuery (the child process, batches over IPC, the same CSV sink). Rounds in
 * turn, the best of each kept. Target: the child-process export at most 2× the in-process one (the price of a query that
 * can be stopped; the second core runs SQLite while this one formats).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { createSink } from "../src/commands/format/create.js";
import { runQuery } from "../src/commands/query-run.js";
import { databaseTarget } from "../src/config/index.js";
import { bestInTurn, fmt, peakRssMb, Report } from "./support.js";

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_QUERY_ROUNDS ?? 3);
const TARGET = 2;
const SQL = "SELECT id, name, note FROM big ORDER BY id";

/** A reader that takes everything at once and keeps only the byte count. */
class Drop extends Writable {
  bytes = 0;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    done();
  }
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-query-"));
  const path = join(dir, "big.db");
  try {
    const conn = new Database(path);
    conn.exec("CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT, note TEXT)");
    const insert = conn.prepare("INSERT INTO big (name, note) VALUES (?, ?)");
    conn.transaction(() => {
      for (let i = 0; i < ROWS; i++) insert.run(`scenario ${i} 名前`, i % 3 ? null : `a, "quoted" note ${i}`);
    })();
    conn.close();

    // What query did before: the statement iterated in this process, its rows yielded one by
    // one from an async generator to the same loop and CSV sink.
    const inProcess = async () => {
      const start = performance.now();
      const out = new Drop();
      const db = new Database(path, { readonly: true });
      const stmt = db.prepare(SQL);
      async function* rows(): AsyncGenerator<unknown[]> {
        try {
          for (const row of stmt.raw(true).safeIntegers(true).iterate() as IterableIterator<unknown[]>)
            yield row;
        } finally {
          db.close();
        }
      }
      const parts: string[] = [];
      let size = 0;
      const sink = createSink("csv", (t) => {
        parts.push(t);
        size += t.length;
      });
      sink.begin(stmt.columns().map((c) => c.name));
      for await (const row of rows()) {
        sink.row(row);
        if (size >= 64 * 1024) {
          out.write(parts.splice(0).join(""));
          size = 0;
        }
      }
      sink.end();
      out.write(parts.join(""));
      return { ms: performance.now() - start, rows: ROWS, bytes: out.bytes };
    };
    const child = async () => {
      const start = performance.now();
      const out = new Drop();
      const code = await runQuery({ sql: SQL, database: databaseTarget(path), format: "csv", output: out });
      if (code !== 0) throw new Error(`runQuery exited ${code}`);
      return { ms: performance.now() - start, rows: ROWS, bytes: out.bytes };
    };

    const report = new Report("bench:query");
    report.figure("rows", fmt(ROWS));
    const [base, measured] = await bestInTurn(ROUNDS, [inProcess, child], (r) => r.ms);
    const b = base?.best;
    const m = measured?.best;
    if (!b || !m) throw new Error("no runs");
    report.check("same CSV bytes", b.bytes === m.bytes, `${fmt(b.bytes)} and ${fmt(m.bytes)} bytes`);
    report.figure(
      "in-process export (baseline, best)",
      `${fmt(b.ms)} ms (${fmt((ROWS / b.ms) * 1000)} rows/s)`,
    );
    report.figure("child-process export (best)", `${fmt(m.ms)} ms (${fmt((ROWS / m.ms) * 1000)} rows/s)`);
    report.target("child-process / in-process", m.ms / b.ms, "at most", TARGET, (n) => `${fmt(n, 2)}×`);
    report.figure("peak RSS of this process", `${fmt(peakRssMb())} MB`);
    return report.end();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
