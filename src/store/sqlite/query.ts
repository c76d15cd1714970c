/** Read-only SQL for people (`tas-sync query`): a second, read-only connection, rows streamed. */
import { type QueryCursor, QueryReadOnlyError } from "../port.js";
import { openConnection, type Sqlite } from "./connection.js";

/** The statement's first keyword, for "query is read-only: DELETE statements are not allowed". */
export function firstKeyword(sql: string): string {
  const m = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(sql);
  return (m?.[1] ?? "this").toUpperCase();
}

export function readOnlyQuery(path: string, sql: string): QueryCursor {
  const db: Sqlite = openConnection(path, { readonly: true });
  let stmt: ReturnType<Sqlite["prepare"]>;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    db.close();
    throw err;
  }
  if (!stmt.reader) {
    db.close();
    throw new QueryReadOnlyError(
      `query is read-only: ${firstKeyword(sql)} statements are not allowed (use SELECT, WITH or PRAGMA)`,
    );
  }
  const columns = stmt.columns().map((c) => c.name);
  async function* rows(): AsyncGenerator<unknown[]> {
    try {
      for (const row of stmt.raw().iterate() as IterableIterator<unknown[]>) yield row;
    } finally {
      db.close();
    }
  }
  return { columns, rows: rows() };
}
