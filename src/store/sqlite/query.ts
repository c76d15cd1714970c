/**
 * Read-only SQL for people (`tas-sync query`) on SQLite: a second, read-only connection; only a
 * statement that reads runs (better-sqlite3 tells from the compiled statement); rows streamed
 * as arrays (duplicate column names kept), 64-bit integers exact.
 */
import Database from "better-sqlite3";
import { type QueryCursor, QueryError, QueryReadOnlyError } from "../port.js";
import { readOnlyMessage, readOnlyRefusal } from "../read-only.js";
import { openConnection, type Sqlite } from "./connection.js";

export function readOnlyQuery(path: string, sql: string): QueryCursor {
  const db: Sqlite = openConnection(path, { readonly: true });
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(sql);
    const refusal = readOnlyRefusal(sql, stmt);
    if (refusal !== null) throw new QueryReadOnlyError(refusal);
  } catch (err) {
    db.close();
    throw queryError(err, sql);
  }
  const columns = stmt.columns().map((c) => c.name);
  async function* rows(): AsyncGenerator<unknown[]> {
    try {
      for (const row of stmt.raw(true).safeIntegers(true).iterate() as IterableIterator<unknown[]>) yield row;
    } catch (err) {
      throw queryError(err, sql);
    } finally {
      db.close();
    }
  }
  return { columns, rows: rows() };
}

/** The driver's error as one line for people. */
function queryError(err: unknown, sql: string): Error {
  if (err instanceof QueryError) return err;
  const e = err as Error & { code?: string };
  // The read-only connection is the backstop of the check before running.
  if (e.code === "SQLITE_READONLY") return new QueryReadOnlyError(readOnlyMessage(sql));
  if (e instanceof RangeError && /no statements/.test(e.message))
    return new QueryError("query failed: the SQL text holds no statement");
  if (e instanceof RangeError && /more than one statement/.test(e.message))
    return new QueryError("query failed: the SQL text holds more than one statement (run one at a time)");
  if (e instanceof Database.SqliteError) return new QueryError(`query failed: ${e.message}`);
  return e;
}
