/**
 * A large snapshot's writes on a thread of their own: this thread decides the operations (reads,
 * checks and normalizes the records, observes them) while the writer thread runs the statements
 * of the ones before on its own connection to the file, in the transaction it holds. The raw
 * pipeline of bench:sync uses one core of two; a full sync now uses both.
 *
 * The transaction stays synchronous on this thread from BEGIN to COMMIT, as on one connection:
 * it waits for the writer (Atomics.wait) rather than yielding to the event loop, so nothing else
 * of this process writes meanwhile (its connection would wait for the writer's lock, which waits
 * for this thread: a deadlock until the busy timeout). Batches in flight are bounded
 * (MAX_IN_FLIGHT), and so is the memory they hold.
 *
 * Encoding, one flat array per batch (the writer decodes it in order, ./writer-source.ts):
 *   0 PREPARE k mode sql     (mode 1: a query of one value)
 *   RUN + k * 1024 + n, args... (run k with n args; last := the rows it changed; one entry, not
 *                            three: a plan is some forty statements, and every entry costs the
 *                            writer its decoding)
 *   2 WHEN changed end       (unless last > 0 === changed, go on at index `end`)
 *   3 COLLECT k n args...    (the value it gives joins the collected ones)
 *   4 FOR k except           (run k with each collected value but `except`)
 *   5 BEGIN   6 GET k n args... (reply: the row)   7 COMMIT   8 ROLLBACK
 */
import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { WRITER_SOURCE } from "./writer-source.js";
import type { WriteStatement, Writes } from "./writes.js";

/** Entries of a batch before it is sent (a few thousand plans' rows). */
const BATCH_ENTRIES = 64 * 1024;
/** Batches sent and not yet written before this thread waits for the writer. */
const MAX_IN_FLIGHT = 4;

const [PREPARE, WHEN, COLLECT, FOR, BEGIN, GET, COMMIT, ROLLBACK] = [0, 2, 3, 4, 5, 6, 7, 8];
/** A RUN's first entry: RUN + k * MAX_ARGS + n. */
const RUN = 16;
const MAX_ARGS = 1024;
const SENT = 0;
const REPLIES = 1;
const FAILED = 2;

/** A statement's read of one row, run where the writes run. */
export type ReadRow = (sql: string, ...args: unknown[]) => unknown;

/** Thrown where this thread learns that the writer failed; the writer's own error replaces it. */
class WriterFailed extends Error {}

export class WriterThread {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #shared = new Int32Array(new SharedArrayBuffer(12));
  /** Statement numbers, by mode and SQL: prepared once on the writer's connection. */
  readonly #ids = new Map<string, number>();
  readonly #statements = new Map<string, WriteStatement>();
  /** The batch being filled, and how deep in WHEN blocks (a batch is sent outside them only). */
  readonly #out = { b: [] as unknown[], depth: 0 };
  #replies = 0;

  constructor(path: string, busyTimeoutMs: number) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(WRITER_SOURCE, {
      eval: true,
      workerData: {
        path,
        busyTimeoutMs,
        driver: createRequire(import.meta.url).resolve("better-sqlite3"),
        shared: this.#shared.buffer,
        port: port2,
      },
      transferList: [port2],
    });
    this.#worker.unref();
    this.#port.unref();
  }

  /**
   * Runs `body` in one IMMEDIATE transaction of the writer's connection: committed when it
   * returns `commit` true, rolled back when false or when it throws (or the writer failed).
   */
  transaction<T>(body: (w: Writes, read: ReadRow) => { value: T; commit: boolean }): T {
    this.#emit(BEGIN);
    try {
      const { value, commit } = body(this.#writes(), (sql, ...args) => this.#get(sql, args));
      this.#call(commit ? COMMIT : ROLLBACK, 1);
      return value;
    } catch (err) {
      const writer = this.#call(ROLLBACK, 2, false);
      throw err instanceof WriterFailed && writer ? writer : err;
    }
  }

  /** Ends the thread and closes its connection. */
  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.ref();
    this.#worker.postMessage("close");
    const timer = setTimeout(() => void this.#worker.terminate(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  #writes(): Writes {
    return {
      prepare: (sql) => {
        let s = this.#statements.get(sql);
        if (!s) {
          s = this.#statement(this.#id(sql, 0));
          this.#statements.set(sql, s);
        }
        return s;
      },
      when: (changed, then) => {
        const out = this.#out;
        const at = out.b.length;
        this.#emit(WHEN, changed ? 1 : 0, 0);
        out.depth++;
        try {
          then();
        } finally {
          out.depth--;
        }
        out.b[at + 2] = out.b.length;
      },
      collect: (sql, ...args) => this.#emit(COLLECT, this.#id(sql, 1), args.length, ...args),
      forEachCollected: (sql, except) => this.#emit(FOR, this.#id(sql, 0), except),
    };
  }

  #id(sql: string, mode: number): number {
    const key = `${mode}:${sql}`;
    let k = this.#ids.get(key);
    if (k === undefined) {
      k = this.#ids.size;
      this.#ids.set(key, k);
      this.#emit(PREPARE, k, mode, sql);
    }
    return k;
  }

  #get(sql: string, args: unknown[]): unknown {
    this.#emit(GET, this.#id(sql, 0), args.length, ...args);
    const r = this.#call(null, 1);
    return r;
  }

  #emit(...entries: unknown[]): void {
    this.#out.b.push(...entries);
  }

  /**
   * Statement k, whose `run` appends RUN and its arguments to the batch. It is compiled for the
   * arity of its first call (every row of a table has the same), so that a row is one `push` of
   * its values: a generic loop over the arguments cost this thread more than reading the rows.
   * A call of another arity takes the generic path.
   */
  #statement(k: number): WriteStatement {
    const out = this.#out;
    const send = () => this.#send(0);
    const generic = (...args: unknown[]) => {
      if (args.length >= MAX_ARGS)
        throw new Error(`a statement of ${args.length} arguments (at most ${MAX_ARGS - 1})`);
      out.b.push(RUN + k * MAX_ARGS + args.length, ...args);
      if (out.b.length >= BATCH_ENTRIES && out.depth === 0) send();
    };
    const s: WriteStatement = {
      run: (...args: unknown[]) => {
        const n = args.length;
        if (n < MAX_ARGS) {
          const params = Array.from({ length: n }, (_, i) => `a${i}`).join(", ");
          // Built from numbers: no outside input reaches the source.
          s.run = new Function(
            "out",
            "send",
            "generic",
            `return function (${params}) {
              if (arguments.length !== ${n}) return generic.apply(null, arguments);
              const b = out.b;
              b.push(${[RUN + k * MAX_ARGS + n, params].filter(Boolean).join(", ")});
              if (b.length >= ${BATCH_ENTRIES} && out.depth === 0) send();
            };`,
          )(out, send, generic);
        }
        generic(...args);
      },
    };
    return s;
  }

  /**
   * Sends the batch ending with `op` (unless null: it ends already) and waits for its reply: the
   * row of a GET. A reply that reports the writer's failure throws it (unless !raise: returned).
   */
  #call(op: number | null, reply: 1 | 2, raise = true): never | unknown {
    if (op !== null) this.#emit(op);
    this.#send(reply);
    const want = ++this.#replies;
    while (Atomics.load(this.#shared, REPLIES) < want) {
      Atomics.wait(this.#shared, REPLIES, want - 1, 1_000);
    }
    const m = receiveMessageOnPort(this.#port)?.message as
      | { row?: unknown; error?: { message: string; code?: string } }
      | undefined;
    if (!m) throw new Error("the writer thread sent no reply");
    if (m.error) {
      const err = Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {});
      if (raise) throw err;
      return err;
    }
    return raise ? m.row : null;
  }

  /** Sends the batch; waits while too many are in flight; stops when the writer failed. */
  #send(reply: 0 | 1 | 2): void {
    const a = this.#out.b;
    this.#out.b = [];
    Atomics.add(this.#shared, SENT, 1);
    this.#worker.postMessage({ a, reply });
    for (let n = Atomics.load(this.#shared, SENT); n > MAX_IN_FLIGHT; n = Atomics.load(this.#shared, SENT)) {
      Atomics.wait(this.#shared, SENT, n, 1_000);
    }
    if (reply === 0 && Atomics.load(this.#shared, FAILED)) throw new WriterFailed("the writer thread failed");
  }
}
