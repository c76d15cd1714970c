/**
 * Decided operations of the plan list (./fresh-decisions.ts) in a temporary file: written by the
 * fresh reader's worker thread as it decides, read by the snapshot's transaction as they come
 * (the transaction then only decodes and writes them: the worker thread parses, checks and
 * normalizes on the other core meanwhile). Each is a frame: the operation without its text as
 * JSON (a plan to write: its rows in bytes, ./rows-codec.ts, told apart by their first byte,
 * which no JSON text starts with), then the text as UTF-8 (a record's text is JSON itself:
 * escaped inside a JSON string it would cost twice). A plan's text is read back as those bytes,
 * not made a string here: the SQLite store binds them as text (about 0.2 s less on the
 * transaction's thread per 100,000 plans). The last frame is the end: what the decisions leave
 * for the snapshot.
 *
 *   u32 length of the JSON (or rows) | i32 length of the text (-1: none; -2: the end frame;
 *   -3: a row shape; -4: an operation without a text property) | JSON (or rows) | text
 *
 * A replay writes every operation it makes here before its transaction opens (./spooled-ops.ts),
 * so that the transaction reads no record either: a plan's rows as a sync's worker writes them,
 * its operation said (./rows-codec.ts), every other operation as JSON.
 *
 * Read by ./op-spool-reader.ts. How far the file is written is shared with the reader
 * (`progress`, a SharedArrayBuffer: bytes written, then 1 once the end frame is in), so the
 * reader waits for the writer without a message (a SQLite transaction holds the event loop).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { rawText, type SnapshotOp } from "../store/port-snapshot.js";
import type { PlanRowSet } from "../tables/index.js";
import type { Decided } from "./fresh-decisions.js";
import { RowsEncoder } from "./rows-codec.js";

export const FLUSH_BYTES = 1 << 20;
/** The pending frames' buffer: a flush's worth and the frame that passed it (most are < 64 KiB). */
const PENDING_BYTES = FLUSH_BYTES + (1 << 16);
export const HEAD = 8;
const NO_TEXT = -1;
export const END = -2;
export const SHAPE = -3;
export const NO_TEXT_KEY = -4;
/**
 * The reader gives up on a writer whose heartbeat stood still this long: a thread gone (out of
 * memory) cannot say so while a SQLite transaction holds the event loop that would hear it.
 */
export const STALL_MS = 20_000;

/**
 * Shared between the two threads: bytes written ([0]), 1 once the end frame is in ([1]), and
 * a heartbeat ([2]) the writer moves with each record it reads.
 */
export type OpProgress = BigInt64Array;

/** The writer is alive and reading: the heartbeat the reader watches. */
export function beat(progress: OpProgress): void {
  Atomics.add(progress, 2, 1n);
}

/** The decisions' file in a spool folder. */
export const decidedPath = (dir: string): string => join(dir, "decided.bin");

export function opProgress(): OpProgress {
  return new BigInt64Array(new SharedArrayBuffer(24));
}

export class OpSpoolWriter {
  readonly path: string;
  readonly #fd: number;
  /** The file was opened by whoever made this writer (it closes it), or here (closed at the end). */
  readonly #ownFd: boolean;
  readonly #progress: OpProgress | null;
  readonly #rows = new RowsEncoder((id, keys) => this.#frame(JSON.stringify([id, keys]), null, SHAPE));
  /** The frames not written yet, made in place (no buffer per frame, no concatenation). */
  #buf = Buffer.allocUnsafe(PENDING_BYTES);
  #at = 0;
  #writeAt = 0;
  #closed = false;
  /** Ids of the mobile apps written so far (see `#plan`). */
  readonly #appsSent = new Set<number>();
  count = 0;

  /** `fd`: the file at `decidedPath(dir)`, opened for writing by the caller, who closes it. */
  constructor(dir: string, progress: OpProgress | null = null, fd?: number) {
    this.path = decidedPath(dir);
    this.#ownFd = fd === undefined;
    this.#fd = fd ?? openSync(this.path, "w");
    this.#progress = progress;
  }

  append(d: Decided | SnapshotOp): void {
    const rows = this.#rows;
    if (d.op === "plan.write") this.#frame(rows.encodeView(this.#plan(d.plan), d.hash), d.rawJson);
    else if (d.op === "plan.insert" || d.op === "plan.update")
      this.#frame(rows.encodeView(this.#plan(d.plan), d.hash, d.op), rawText(d.rawJson));
    else if (d.op === "plan.renormalize") this.#frame(rows.encodeView(this.#plan(d.plan), "", d.op), null);
    else if ("rawJson" in d) {
      const { rawJson, ...rest } = d;
      this.#frame(JSON.stringify(rest, keepNumbers), rawJson);
    } else this.#frame(JSON.stringify(d, keepNumbers), null, NO_TEXT_KEY);
    this.count++;
    if (this.#at >= FLUSH_BYTES) this.#flush();
  }

  /** The end frame (`end`: any JSON value), written with all that is pending; then closes. */
  end(end: unknown): void {
    this.#frame(JSON.stringify(end, keepNumbers), null, END);
    this.#flush();
    this.close();
    if (this.#progress) {
      Atomics.store(this.#progress, 1, 1n);
      Atomics.notify(this.#progress, 0);
    }
  }

  /**
   * A plan's rows without the mobile apps an earlier plan of the file carried. Both stores write
   * a run's first row of each mobile app and skip the rest (PlanWriter, PlanBatch): apps are
   * shared by many plans (the simulator's 100,000 plans carry 42,000 rows of 7 apps, a third
   * of the rows' bytes), so what the transaction would skip is neither encoded nor decoded.
   */
  #plan(plan: PlanRowSet): PlanRowSet {
    const apps = plan.mobileApps;
    if (apps.length === 0) return plan;
    const fresh = apps.filter((a) => !this.#appsSent.has(a.id as number));
    for (const a of fresh) this.#appsSent.add(a.id as number);
    return fresh.length === apps.length ? plan : { ...plan, mobileApps: fresh };
  }

  /** Closes the file if this writer opened it (once; `end` does it): the file then ends unfinished. */
  close(): void {
    if (!this.#ownFd || this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }

  /** A frame at the end of the pending ones. */
  #frame(body: string | Buffer, text: string | null, kind = NO_TEXT): void {
    const most =
      HEAD + (typeof body === "string" ? utf8Room(body) : body.length) + (text ? utf8Room(text) : 0);
    if (this.#at + most > this.#buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + most));
      this.#buf.copy(grown, 0, 0, this.#at);
      this.#buf = grown;
    }
    const buf = this.#buf;
    const start = this.#at + HEAD;
    const bodyLength = typeof body === "string" ? buf.write(body, start) : body.copy(buf, start);
    const textLength = text === null ? kind : buf.write(text, start + bodyLength);
    buf.writeUInt32LE(bodyLength, this.#at);
    buf.writeInt32LE(textLength, this.#at + 4);
    this.#at = start + bodyLength + Math.max(0, textLength);
  }

  #flush(): void {
    if (this.#at === 0) return;
    const buf = this.#buf;
    for (let offset = 0; offset < this.#at; ) {
      const n = writeSync(this.#fd, buf, offset, this.#at - offset, this.#writeAt);
      offset += n;
      this.#writeAt += n;
    }
    this.#at = 0;
    // A long frame grew it: back to its first size.
    if (buf.length > PENDING_BYTES) this.#buf = Buffer.allocUnsafe(PENDING_BYTES);
    if (this.#progress) {
      Atomics.store(this.#progress, 0, BigInt(this.#writeAt));
      Atomics.notify(this.#progress, 0);
    }
  }
}

/**
 * Room for a string as UTF-8: 3 bytes per unit at most (a surrogate pair: 4 for 2); a long one
 * measured, so that a text of hundreds of MB does not ask for three times its size.
 */
function utf8Room(s: string): number {
  return s.length <= 1 << 16 ? s.length * 3 : Buffer.byteLength(s);
}

/**
 * The end frame carries the observer's state, and a replay's schema write its observations,
 * whose minima and maxima may be numbers JSON has no text for (a value of 1e400 parses to
 * Infinity; -0): tagged on the way, back on reading.
 */
export const NUMBER_TAG = "\u0000number";

function keepNumbers(_key: string, v: unknown): unknown {
  return typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))
    ? { [NUMBER_TAG]: Object.is(v, -0) ? "-0" : String(v) }
    : v;
}
