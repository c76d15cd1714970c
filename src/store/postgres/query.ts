/**
 * Read-only SQL for people (`tas-sync query`) on PostgreSQL: a connection of its own (closed at
 * the end, so nothing the statement sets outlives it), a READ ONLY transaction that is rolled
 * back, and a portal read a page at a time, so a million-row result streams in bounded memory.
 * The server refuses a write (25006); a statement that returns no rows (SET, ...) is refused
 * too, as on SQLite. 64-bit integers come back exact (bigint).
 */
import pg from "pg";
import Cursor from "pg-cursor";
import type { Secret } from "../../secret.js";
import { StoreError } from "../errors.js";
import { type QueryCursor, QueryError, QueryReadOnlyError } from "../port.js";
import { readOnlyMessage } from "../read-only.js";
import { connectionConfig } from "./pool.js";

const PAGE = 1000;

export async function readOnlyQuery(url: Secret, display: string, sql: string): Promise<QueryCursor> {
  const client = new pg.Client(connectionConfig(url, { int8: "bigint" }));
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new StoreError(`cannot connect to ${display}: ${(err as Error).message}`);
  }
  let cursor: Cursor | undefined;
  const close = async () => {
    await cursor?.close().catch(() => {});
    await client.query("ROLLBACK").catch(() => {});
    await client.end().catch(() => {});
  };
  let first: unknown[][];
  let columns: string[];
  try {
    await client.query("BEGIN READ ONLY");
    cursor = client.query(new Cursor(sql, [], { rowMode: "array" }));
    const page = await read(cursor, PAGE);
    if (page.command === null && page.fields.length === 0)
      throw new QueryError("query failed: the SQL text holds no statement");
    if (page.fields.length === 0) throw new QueryReadOnlyError(readOnlyMessage(sql));
    first = page.rows;
    columns = page.fields;
  } catch (err) {
    await close();
    throw queryError(err, sql);
  }
  const open = cursor as Cursor;
  async function* rows(): AsyncGenerator<unknown[]> {
    try {
      let page = first;
      for (;;) {
        yield* page;
        if (page.length < PAGE) break;
        page = (await read(open, PAGE)).rows;
      }
    } catch (err) {
      throw queryError(err, sql);
    } finally {
      await close();
    }
  }
  return { columns, rows: rows() };
}

interface Page {
  rows: unknown[][];
  fields: string[];
  command: string | null;
}

function read(cursor: Cursor, n: number): Promise<Page> {
  return new Promise((resolve, reject) => {
    cursor.read(n, (err, rows, result) => {
      if (err) reject(err);
      else
        resolve({
          rows: rows as unknown[][],
          fields: (result?.fields ?? []).map((f) => f.name),
          command: result?.command ?? null,
        });
    });
  });
}

/** The server's error as one line for people. */
function queryError(err: unknown, sql: string): Error {
  if (err instanceof QueryError || err instanceof StoreError) return err;
  const e = err as Error & { code?: string };
  if (e.code === "25006") return new QueryReadOnlyError(readOnlyMessage(sql));
  if (e.code === "42601" && /multiple commands/.test(e.message))
    return new QueryError("query failed: the SQL text holds more than one statement (run one at a time)");
  if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code))
    return new QueryError(`query failed: ${e.message}`);
  return e;
}
