/**
 * `query`: stream a read-only query's rows through a format sink, so a result of millions of
 * rows prints in bounded memory, whatever the store (SQLite cursor, PostgreSQL cursor).
 */

import type { DatabaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import { createSink } from "./format/create.js";
import type { OutputFormat } from "./format/defaults.js";
import type { TableOptions } from "./format/table.js";
import { StreamOutput } from "./stream-output.js";

export interface QueryRun {
  /** One SQL statement. */
  sql: string;
  database: DatabaseTarget;
  format: OutputFormat;
  table?: TableOptions;
  /** csv: cells exactly as stored, without the formula guard. */
  rawCsv?: boolean;
  /** Where the rows go (process.stdout in the CLI). */
  output: NodeJS.WritableStream;
  /** Stops the query, running or streaming (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** From the start until the last row is read, ms; 0: no limit. */
  timeoutMs?: number;
  /** Table output only: rows printed at most; a line says when more were cut. 0: no cap. */
  maxRows?: number;
  /** Where warnings go, one line each (stderr in the CLI). */
  warn?: (line: string) => void;
  /** Called once the statement is checked and running (the CLI logs it at debug level). */
  onRunning?: () => void;
}

/** Exit code when the user stopped the output (128 + SIGINT). */
const STOPPED = 130;

/**
 * Runs the query and writes every row; 0 when done (or when the reader went away), 130 when
 * stopped by the signal. Bad SQL and writes throw a QueryError (a UserError) with a one-line message.
 */
export async function runQuery(q: QueryRun): Promise<number> {
  const store = await openStore(q.database, { readonly: true });
  const out = new StreamOutput(q.output);
  const cap = q.format === "table" && q.maxRows !== undefined && q.maxRows > 0 ? q.maxRows : Infinity;
  try {
    const cursor = await store.sql.query(q.sql, { timeoutMs: q.timeoutMs, signal: q.signal });
    for (const line of cursor.warnings) (q.warn ?? ((l) => process.stderr.write(`${l}\n`)))(line);
    q.onRunning?.();
    const sink = createSink(q.format, out.write, q.table, { raw: q.rawCsv });
    sink.begin(cursor.columns);
    let shown = 0;
    let cut = false;
    // Leaving the loop (a stop, the cap, a vanished reader) closes the cursor: the query stops.
    for await (const row of cursor.rows) {
      if (q.signal?.aborted) break;
      if (shown === cap) {
        cut = true;
        break;
      }
      sink.row(row);
      shown++;
      if (out.full) {
        await out.flush();
        if (out.closed) return 0;
        if (q.signal?.aborted) return STOPPED;
      }
    }
    if (q.signal?.aborted) {
      await out.flush();
      return STOPPED;
    }
    sink.end();
    if (cut)
      out.write(
        `(the first ${shown} rows; more were cut: raise --max-rows, 0 for all, or use --format csv)\n`,
      );
    await out.flush();
    return 0;
  } finally {
    out.dispose();
    await store.close();
  }
}
