/**
 * The process that runs one `query` statement on SQLite (CommonJS source, run with `node -`).
 * better-sqlite3 has no interrupt and no progress callback, and a worker thread inside SQLite's
 * step cannot be terminated (nor can the process exit while one runs): a process of its own can
 * be killed at once. It opens the file read-only, compiles the statement and says whether it
 * reads (the parent decides), then sends rows in batches, one batch per credit the parent gives,
 * so memory stays bounded whatever the result's size. The SQL comes over the IPC channel, never
 * on the command line. Signals are the parent's to handle: it kills this process; a parent
 * killed with SIGKILL takes this process with it (the watchdog below).
 */
export const CHILD_SOURCE = `"use strict";
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
process.on("disconnect", () => process.exit(0));
// Should the parent die without killing this process (kill -9), a watchdog thread, free while
// this thread is inside SQLite, sees it has a new parent and kills the process.
const { Worker } = require("node:worker_threads");
new Worker(
  "const { workerData: w } = require('node:worker_threads');" +
    "setInterval(() => { if (process.ppid !== w.ppid) process.kill(w.pid, 'SIGKILL'); }, 250);",
  { eval: true, workerData: { ppid: process.ppid, pid: process.pid } },
).unref();
const BATCH_ROWS = 1000;
const BATCH_CHARS = 1 << 20;
let credit = 0;
let wake = null;
const more = () => credit > 0 ? Promise.resolve() : new Promise((r) => { wake = r; });
const send = (m) => process.send(m);
const failure = (e) => ({ type: "error", name: e && e.name, code: e && e.code, message: String(e && e.message) });
const size = (row) => {
  let n = 0;
  for (const v of row) n += typeof v === "string" ? v.length : v && v.byteLength ? v.byteLength : 8;
  return n;
};
async function run(m) {
  let db;
  try {
    const Database = require(m.driver);
    db = new Database(m.path, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = " + m.busyTimeoutMs);
  } catch (e) {
    send({ type: "open-error", message: String(e && e.message) });
    return;
  }
  let stmt;
  try {
    stmt = db.prepare(m.sql);
    send({ type: "ready", reader: stmt.reader, readonly: stmt.readonly, columns: stmt.reader ? stmt.columns().map((c) => c.name) : [] });
  } catch (e) {
    send(failure(e));
    return;
  }
  await more();
  credit--;
  try {
    let batch = [];
    let chars = 0;
    for (const row of stmt.raw(true).safeIntegers(true).iterate()) {
      batch.push(row);
      chars += size(row);
      if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) {
        send({ type: "rows", rows: batch, done: false });
        batch = [];
        chars = 0;
        await more();
        credit--;
      }
    }
    send({ type: "rows", rows: batch, done: true });
  } catch (e) {
    send(failure(e));
  }
}
process.on("message", (m) => {
  if (m.type === "more") {
    credit++;
    const w = wake;
    wake = null;
    if (w) w();
  } else if (m.type === "run") run(m);
});
`;

/** What the parent sends. */
export type ToChild =
  | { type: "run"; driver: string; path: string; sql: string; busyTimeoutMs: number }
  | { type: "more" };

/** What the child sends. */
export type FromChild =
  | { type: "open-error"; message: string }
  | { type: "ready"; reader: boolean; readonly: boolean; columns: string[] }
  | { type: "rows"; rows: unknown[][]; done: boolean }
  | { type: "error"; name?: string; code?: string; message: string };
