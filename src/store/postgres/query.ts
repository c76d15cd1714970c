/**
 * Read-only SQL for people (`tas-sync query`) on PostgreSQL. Nothing is sent before the
 * statement is checked on its parse tree (statement-check.ts): one statement that reads. Then
 * a connection of its own (closed at the end, so nothing the statement sets outlives it), a
 * READ ONLY transaction that is rolled back, a statement timeout, and a portal read a page at a
 * time, so a million-row result streams in bounded memory. The server refuses a write (25006)
 * as the backstop; a statement that returns no rows is refused too, as on SQLite. 64-bit
 * integers come back exact (bigint). A stop (Ctrl-C) or the timeout cancels the running
 * statement on the server.
 */
import pg from "pg";
import Cursor from "pg-cursor";
import type { Secret } from "../../secret.js";
import { StoreError } from "../errors.js";
import {
  type QueryCursor,
  QueryError,
  type QueryOptions,
  QueryReadOnlyError,
  QueryTimeoutError,
  timeoutMessage,
} from "../port.js";
import { readOnlyMessage } from "../read-only.js";
import { connectionConfig } from "./pool.js";
import { roleWarnings } from "./role-check.js";
import { statementRefusal } from "./statement-check.js";

const PAGE = 1000;

export async function readOnlyQuery(
  url: Secret,
  display: string,
  sql: string,
  opts: QueryOptions = {},
): Promise<QueryCursor> {
  const refusal = await statementRefusal(sql);
  if (refusal !== null)
    throw refusal.kind === "read-only"
      ? new QueryReadOnlyError(refusal.message)
      : new QueryError(refusal.message);
  const config = connectionConfig(url, { int8: "bigint" });
  // The parser above reads backslashes in '...' as the server then does: literally.
  config.options = `${config.options ?? ""} -c standard_conforming_strings=on`;
  const client = new pg.Client(config);
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new StoreError(`cannot connect to ${display}: ${(err as Error).message}`);
  }
  const timeoutMs = opts.timeoutMs ?? 0;
  let timedOut = false;
  let ended = false;
  // A second connection asks the server to cancel the running statement (the same role may).
  const cancel = () => {
    if (ended) return;
    const pid = (client as unknown as { processID?: number }).processID;
    if (pid === undefined) return;
    const other = new pg.Client(connectionConfig(url));
    other.on("error", () => {});
    other
      .connect()
      .then(() => other.query("SELECT pg_cancel_backend($1)", [pid]))
      .catch(() => {})
      .finally(() => other.end().catch(() => {}));
  };
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          cancel();
        }, timeoutMs)
      : undefined;
  timer?.unref();
  const onAbort = () => cancel();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  let cursor: Cursor | undefined;
  const close = async () => {
    ended = true;
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    await cursor?.close().catch(() => {});
    await client.query("ROLLBACK").catch(() => {});
    await client.end().catch(() => {});
  };
  // The server's statement_timeout (the same bound) may fire before this process's timer.
  const serverTimeout = (err: unknown) =>
    (err as { code?: unknown })?.code === "57014" && /statement timeout/.test((err as Error).message);
  const failure = (err: unknown): Error =>
    timedOut || serverTimeout(err) ? new QueryTimeoutError(timeoutMessage(timeoutMs)) : queryError(err, sql);
  let first: unknown[][];
  let columns: string[];
  let warnings: string[];
  try {
    await client.query("BEGIN READ ONLY");
    // The server's own bound too, should this process go away mid-query.
    await client.query(`SET LOCAL statement_timeout = ${Math.max(0, Math.trunc(timeoutMs))}`);
    warnings = await roleWarnings(client);
    cursor = client.query(new Cursor(sql, [], { rowMode: "array" }));
    const page = await read(cursor, PAGE);
    if (page.command === null && page.fields.length === 0)
      throw new QueryError("query failed: the SQL text holds no statement");
    if (page.fields.length === 0) throw new QueryReadOnlyError(readOnlyMessage(sql, "postgres"));
    first = page.rows;
    columns = page.fields;
  } catch (err) {
    await close();
    if (opts.signal?.aborted) return { columns: [], rows: (async function* () {})(), warnings: [] };
    throw failure(err);
  }
  const open = cursor as Cursor;
  async function* rows(): AsyncGenerator<unknown[]> {
    try {
      let page = first;
      for (;;) {
        yield* page;
        if (page.length < PAGE || opts.signal?.aborted) break;
        // Between two pages the server runs nothing that a cancel could stop.
        if (timedOut) throw new QueryTimeoutError(timeoutMessage(timeoutMs));
        page = (await read(open, PAGE)).rows;
      }
    } catch (err) {
      // Stopped by the user: the rows end here; the caller knows from its signal.
      if (opts.signal?.aborted && !timedOut) return;
      throw failure(err);
    } finally {
      await close();
    }
  }
  return { columns, rows: rows(), warnings };
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
  if (e.code === "25006") return new QueryReadOnlyError(readOnlyMessage(sql, "postgres"));
  if (e.code === "42601" && /multiple commands/.test(e.message))
    return new QueryError("query failed: the SQL text holds more than one statement (run one at a time)");
  if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code))
    return new QueryError(`query failed: ${e.message}`);
  return e;
}
