/**
 * The writer thread's program (CommonJS source, run with `eval`: it needs none of our modules,
 * so it runs the same from the sources under test and from the build). It holds a connection of
 * its own to the database file and runs what the committing thread sends: batches of
 * instructions in one flat array (see ./remote.ts for their encoding), executed in order.
 *
 * Shared counters (Int32Array over workerData.shared): [0] batches sent and not yet executed,
 * [1] replies sent, [2] 1 once an instruction failed (the transaction is rolled back then, and
 * every later batch is skipped until the sender rolls back too, which clears it). A batch that
 * expects a reply ends with GET, COMMIT or ROLLBACK (m.reply 1; 2 for ROLLBACK); the reply goes
 * out on workerData.port.
 */
export const WRITER_SOURCE = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const shared = new Int32Array(workerData.shared);
const port = workerData.port;
let db = null;
const stmts = [];
const runners = new Map();
let last = 0;
let collected = new Set();
let failure = null;
function open() {
  const Database = require(workerData.driver);
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("cache_size = -32768");
}
function runner(k, n, method) {
  const key = (k * 4096 + n) * 4 + method;
  let f = runners.get(key);
  if (!f) {
    const args = [];
    for (let j = 0; j < n; j++) args.push("a[i + " + j + "]");
    const call = ["run", "get", "get"][method];
    f = new Function("s", "return (a, i) => s." + call + "(" + args.join(", ") + ");")(stmts[k]);
    runners.set(key, f);
  }
  return f;
}
function reply(m) {
  port.postMessage(m);
  Atomics.add(shared, 1, 1);
  Atomics.notify(shared, 1);
}
function exec(a) {
  let i = 0;
  while (i < a.length) {
    const op = a[i];
    if (op >= 16) {
      const n = (op - 16) % 1024;
      last = runner((op - 16 - n) / 1024, n, 0)(a, i + 1).changes;
      i += 1 + n;
    } else if (op === 2) {
      const end = a[i + 2];
      i = (last > 0) === (a[i + 1] === 1) ? i + 3 : end;
    } else if (op === 0) {
      let s = db.prepare(a[i + 3]);
      if (a[i + 2] === 1) s = s.pluck();
      stmts[a[i + 1]] = s;
      i += 4;
    } else if (op === 3) {
      const n = a[i + 2];
      collected.add(runner(a[i + 1], n, 1)(a, i + 3));
      i += 3 + n;
    } else if (op === 4) {
      const s = stmts[a[i + 1]];
      for (const v of collected) if (v !== a[i + 2]) s.run(v);
      i += 3;
    } else if (op === 5) {
      if (!db) open();
      collected = new Set();
      db.exec("BEGIN IMMEDIATE");
      i += 1;
    } else if (op === 6) {
      const n = a[i + 2];
      const row = runner(a[i + 1], n, 2)(a, i + 3);
      return { row: row === undefined ? null : row };
    } else if (op === 7) {
      db.exec("COMMIT");
      return {};
    } else if (op === 8) {
      if (db && db.inTransaction) db.exec("ROLLBACK");
      return {};
    } else throw new Error("writer thread: unknown instruction " + op + " at " + i);
  }
  return null;
}
parentPort.on("message", (m) => {
  if (m === "close") {
    if (db) db.close();
    parentPort.close();
    port.close();
    return;
  }
  let answer = null;
  try {
    if (failure === null) answer = exec(m.a);
    else if (m.reply) answer = { error: failure };
  } catch (e) {
    failure = { message: String(e && e.message), code: e && e.code };
    try {
      if (db && db.inTransaction) db.exec("ROLLBACK");
    } catch {}
    Atomics.store(shared, 2, 1);
    if (m.reply) answer = { error: failure };
  }
  if (m.reply === 2) {
    failure = null;
    Atomics.store(shared, 2, 0);
  }
  Atomics.sub(shared, 0, 1);
  Atomics.notify(shared, 0);
  if (answer) reply(answer);
});
`;
