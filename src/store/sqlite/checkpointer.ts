/**
 * WAL checkpoints on a thread of their own. By default the connection that commits a
 * transaction copies the WAL into the database file right after (auto-checkpoint): after a
 * 100k-plan snapshot, 200 MB copied while the sync waits. Here the store's connection never
 * checkpoints; a worker thread with its own connection runs PASSIVE checkpoints (which neither
 * wait for nor block a writer or a reader) when nudged after a write and every few seconds, so
 * the WAL stays as small as before while the writer goes on. If the thread fails or ends, the
 * connection checkpoints itself again (the WAL never grows without bound). Closing the store
 * closes the thread first: the store's connection is then the last one and folds the rest of
 * the WAL in as it closes, as before.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Sqlite } from "./connection.js";

/** How often the thread checkpoints without being nudged (writes other than snapshots). */
const EVERY_MS = 2000;
/** SQLite's default auto-checkpoint threshold (pages), restored if the thread goes. */
const AUTO_CHECKPOINT_PAGES = 1000;

/** CommonJS, evaluated: it loads the same driver the store uses, from its resolved path. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 0");
parentPort.on("message", (m) => {
  if (m === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    // Another process checkpointing at that moment: the next nudge will do.
    if (!String(err && err.code).startsWith("SQLITE_BUSY")) throw err;
  }
});
`;

export class Checkpointer {
  readonly #worker: Worker;
  readonly #timer: NodeJS.Timeout;
  #alive = true;
  readonly #exited: Promise<void>;

  /** Null where a second connection would not see the same database (":memory:", ""). */
  static start(sqlite: Sqlite, path: string): Checkpointer | null {
    if (path === "" || path === ":memory:" || path.startsWith("file::memory:")) return null;
    return new Checkpointer(sqlite, path);
  }

  private constructor(sqlite: Sqlite, path: string) {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    sqlite.pragma("wal_autocheckpoint = 0");
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path } });
    // Neither keeps the process alive: an unclosed store must not hold a CLI open.
    this.#worker.unref();
    const fallBack = () => {
      if (!this.#alive) return;
      this.#alive = false;
      clearInterval(this.#timer);
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    };
    // A failure (the file gone, the driver refused in a thread) only brings the old way back.
    this.#worker.on("error", fallBack);
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    void this.#exited.then(fallBack);
    this.#timer = setInterval(() => this.nudge(), EVERY_MS);
    this.#timer.unref();
  }

  /** A write committed: fold the WAL in soon. */
  nudge(): void {
    if (this.#alive) this.#worker.postMessage("checkpoint");
  }

  /** Ends the thread after its last checkpoint; the store's connection closes after this. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    // Held while it ends: otherwise a process with nothing else to do exits mid-close.
    this.#worker.ref();
    if (this.#alive) this.#worker.postMessage("close");
    await this.#exited;
  }
}
