/**
 * `query`: stream a read-only query's rows through a format sink, so a result of millions of
 * rows prints in bounded memory, whatever the store (SQLite cursor, PostgreSQL cursor).
 */

import type { DatabaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import { createSink, type OutputFormat, type TableOptions } from "./format/index.js";
import { StreamOutput } from "./stream-output.js";

export interface QueryRun {
  /** One SQL statement. */
  sql: string;
  database: DatabaseTarget;
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
 * stopped by the signal. Bad SQL and writes throw a QueryError (a UserError) with a one-line message.
 */
export async function runQuery(q: QueryRun): Promise<number> {
  const store = await openStore(q.database, { readonly: true });
  const out = new StreamOutput(q.output);
  try {
    const cursor = await store.sql.query(q.sql);
    const sink = createSink(q.format, out.write, q.table);
    sink.begin(cursor.columns);
    for await (const row of cursor.rows) {
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
  } finally {
    out.dispose();
    await store.close();
  }
}
