/**
 * `query` on a SQLite file: open it read-only, refuse anything but a read, and stream the rows
 * through a format sink with `stmt.iterate()`, so a result of millions of rows prints in
 * bounded memory.
 */
import Database from "better-sqlite3";
import { createSink, type OutputFormat, type TableOptions } from "./format/index.js";
import { readOnlyMessage, readOnlyRefusal } from "./query-sql.js";
import { StreamOutput } from "./stream-output.js";
import { UsageError } from "./types.js";

export interface QueryRun {
  /** One SQL statement. */
  sql: string;
  /** The SQLite database file (must exist). */
  path: string;
  format: OutputFormat;
  table?: TableOptions;
  /** Where the rows go (process.stdout in the CLI). */
  output: NodeJS.WritableStream;
  /** Stops the output between two rows (Ctrl-C). */
  signal?: AbortSignal;
}

/** Exit code when the user stopped the output (128 + SIGINT). */
const STOPPED = 130;

/**
 * Runs the query and writes every row; 0 when done (or when the reader went away), 130 when
 * stopped by the signal. Bad SQL and writes throw a UsageError with a one-line message.
 */
export async function runQuery(q: QueryRun): Promise<number> {
  let db: Database.Database;
  try {
    db = new Database(q.path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new UsageError(`cannot open ${q.path}: ${(err as Error).message} (run tas-sync sync first)`);
  }
  const out = new StreamOutput(q.output);
  try {
    const stmt = prepareRead(db, q.sql);
    const sink = createSink(q.format, out.write, q.table);
    sink.begin(stmt.columns().map((c) => c.name));
    // raw: arrays (duplicate column names are kept); safeIntegers: 64-bit integers exact.
    for (const row of stmt.raw(true).safeIntegers(true).iterate() as IterableIterator<unknown[]>) {
      sink.row(row);
      if (out.full) {
        await out.flush();
        if (out.closed) return 0;
        if (q.signal?.aborted) return STOPPED;
      }
    }
    sink.end();
    await out.flush();
    return q.signal?.aborted ? STOPPED : 0;
  } catch (err) {
    throw queryError(err, q.sql);
  } finally {
    out.dispose();
    db.close();
  }
}

function prepareRead(db: Database.Database, sql: string): Database.Statement {
  const stmt = db.prepare(sql);
  const refusal = readOnlyRefusal(sql, stmt);
  if (refusal !== null) throw new UsageError(refusal);
  return stmt;
}

/** The driver's error as one line for the user. */
function queryError(err: unknown, sql: string): Error {
  if (err instanceof UsageError) return err;
  const e = err as Error & { code?: string };
  // The read-only connection is the backstop of the check before running.
  if (e.code === "SQLITE_READONLY") return new UsageError(readOnlyMessage(sql));
  if (e instanceof RangeError && /no statements/.test(e.message))
    return new UsageError("query failed: the SQL text holds no statement");
  if (e instanceof RangeError && /more than one statement/.test(e.message))
    return new UsageError("query failed: the SQL text holds more than one statement (run one at a time)");
  if (e instanceof Database.SqliteError) return new UsageError(`query failed: ${e.message}`);
  return e;
}
