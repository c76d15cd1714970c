/**
 * Read-only SQL for people (`tas-sync query`) on SQLite: the statement runs in a process of its
 * own (query-child.ts) on a read-only connection, so a stop (Ctrl-C, SIGTERM) or the timeout
 * kills it at once, even inside a step that never returns a row. Only a statement that reads
 * runs (better-sqlite3 tells from the compiled statement); rows come back in batches as arrays
 * (duplicate column names kept), 64-bit integers exact, at most two batches held.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { StoreError } from "../errors.js";
import {
  type QueryCursor,
  QueryError,
  type QueryOptions,
  QueryReadOnlyError,
  QueryTimeoutError,
  timeoutMessage,
} from "../port.js";
import { readOnlyMessage, readOnlyRefusal } from "../read-only.js";
import { DEFAULT_BUSY_TIMEOUT_MS } from "./connection.js";
import { CHILD_SOURCE, type FromChild, type ToChild } from "./query-child.js";

type Ended = { kind: "stopped" } | { kind: "timeout" } | { kind: "exit"; detail: string };

export async function readOnlyQuery(
  path: string,
  sql: string,
  opts: QueryOptions = {},
): Promise<QueryCursor> {
  // The source comes on stdin ("node -"): the process list shows "node - tas-sync-query", not
  // the script; the environment is not handed on (the query process needs none of it).
  const child = spawn(process.execPath, ["-", "tas-sync-query"], {
    stdio: ["pipe", "inherit", "inherit", "ipc"],
    serialization: "advanced",
    env: { PATH: process.env.PATH ?? "" },
  });
  child.stdin?.on("error", () => {});
  child.stdin?.end(CHILD_SOURCE);
  const messages = new Inbox(child);
  const timeoutMs = opts.timeoutMs ?? 0;
  const timer = timeoutMs > 0 ? setTimeout(() => messages.end({ kind: "timeout" }), timeoutMs) : undefined;
  const onAbort = () => messages.end({ kind: "stopped" });
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const finish = () => {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    messages.end({ kind: "stopped" });
  };
  if (opts.signal?.aborted) onAbort();
  const ended = (e: Ended): Error | null => {
    if (e.kind === "timeout") return new QueryTimeoutError(timeoutMessage(timeoutMs));
    if (e.kind === "exit") return new QueryError(`query failed: the query process ended (${e.detail})`);
    return null;
  };

  let columns: string[];
  try {
    messages.send({
      type: "run",
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
      path,
      sql,
      busyTimeoutMs: DEFAULT_BUSY_TIMEOUT_MS,
    });
    const first = await messages.next();
    if ("kind" in first) {
      const err = ended(first);
      if (err) throw err;
      finish();
      return { columns: [], rows: (async function* () {})(), warnings: [] };
    }
    if (first.type === "open-error")
      throw new StoreError(
        `cannot open database ${path}: ${first.message} (does it exist? run tas-sync sync first)`,
      );
    if (first.type !== "ready") throw childError(first, sql);
    const refusal = readOnlyRefusal(sql, first);
    if (refusal !== null) throw new QueryReadOnlyError(refusal);
    columns = first.columns;
  } catch (err) {
    finish();
    throw err;
  }

  async function* rows(): AsyncGenerator<unknown[]> {
    try {
      messages.send({ type: "more" });
      for (;;) {
        const m = await messages.next();
        if ("kind" in m) {
          const err = ended(m);
          if (err) throw err;
          return;
        }
        if (m.type !== "rows") throw childError(m, sql);
        // Ask for the next batch while this one is written: two at most are held.
        if (!m.done) messages.send({ type: "more" });
        for (const row of m.rows) yield asBuffers(row);
        if (m.done) return;
      }
    } finally {
      finish();
    }
  }
  return { columns, rows: rows(), warnings: [] };
}

/** A blob crosses the channel as a Uint8Array; people's code expects a Buffer, as from the driver. */
function asBuffers(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v))
      row[i] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}

/**
 * The child's messages as a queue, ended by a stop, the timeout or the child's exit (the first
 * of them wins; ending kills the child).
 */
class Inbox {
  private queue: FromChild[] = [];
  private waiting: ((m: FromChild | Ended) => void) | null = null;
  private over: Ended | null = null;

  constructor(private readonly child: ChildProcess) {
    child.on("message", (m: FromChild) => {
      if (this.over) return;
      const w = this.waiting;
      this.waiting = null;
      if (w) w(m);
      else this.queue.push(m);
    });
    child.on("exit", (code, signal) => this.end({ kind: "exit", detail: signal ?? `exit code ${code}` }));
    child.on("error", (err) => this.end({ kind: "exit", detail: err.message }));
  }

  send(m: ToChild): void {
    if (this.over === null && this.child.connected) this.child.send(m);
  }

  next(): Promise<FromChild | Ended> {
    const m = this.queue.shift();
    if (m !== undefined) return Promise.resolve(m);
    if (this.over) return Promise.resolve(this.over);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  end(why: Ended): void {
    if (this.over) return;
    this.over = why;
    this.queue = [];
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    const w = this.waiting;
    this.waiting = null;
    w?.(why);
  }
}

/** The driver's error, as the child reported it, in one line for people. */
function childError(m: FromChild, sql: string): Error {
  if (m.type !== "error")
    return new QueryError(`query failed: unexpected answer from the query process (${m.type})`);
  // The read-only connection is the backstop of the check before running.
  if (m.code === "SQLITE_READONLY") return new QueryReadOnlyError(readOnlyMessage(sql));
  if (m.name === "RangeError" && /no statements/.test(m.message))
    return new QueryError("query failed: the SQL text holds no statement");
  if (m.name === "RangeError" && /more than one statement/.test(m.message))
    return new QueryError("query failed: the SQL text holds more than one statement (run one at a time)");
  if (m.name === "SqliteError") return new QueryError(`query failed: ${m.message}`);
  return new Error(m.message);
}
