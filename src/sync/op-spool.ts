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
 * How far the file is written is shared with the reader (`progress`, a SharedArrayBuffer:
 * bytes written, then 1 once the end frame is in), so the reader waits for the writer
 * without a message (a SQLite transaction holds the event loop).
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { rawText, type SnapshotOp } from "../store/port-snapshot.js";
import type { PlanRowSet } from "../tables/index.js";
import type { Decided, DecidedOp } from "./fresh-decisions.js";
import { ROWS_MARK, RowsDecoder, RowsEncoder } from "./rows-codec.js";

const FLUSH_BYTES = 1 << 20;
const HEAD = 8;
const NO_TEXT = -1;
const END = -2;
const SHAPE = -3;
const NO_TEXT_KEY = -4;
/**
 * The reader gives up on a writer whose heartbeat stood still this long: a thread gone (out of
 * memory) cannot say so while a SQLite transaction holds the event loop that would hear it.
 */
const STALL_MS = 20_000;

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
  #pending: Buffer[] = [];
  #pendingBytes = 0;
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
    if (d.op === "plan.write") this.#frame(this.#rows.encode(this.#plan(d.plan), d.hash), d.rawJson);
    else if (d.op === "plan.insert" || d.op === "plan.update")
      this.#frame(this.#rows.encode(this.#plan(d.plan), d.hash, d.op), rawText(d.rawJson));
    else if (d.op === "plan.renormalize") this.#frame(this.#rows.encode(this.#plan(d.plan), "", d.op), null);
    else if ("rawJson" in d) {
      const { rawJson, ...rest } = d;
      this.#frame(JSON.stringify(rest, keepNumbers), rawJson);
    } else this.#frame(JSON.stringify(d, keepNumbers), null, NO_TEXT_KEY);
    this.count++;
    if (this.#pendingBytes >= FLUSH_BYTES) this.#flush();
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

  #frame(body: string | Buffer, text: string | null, kind = NO_TEXT): void {
    const j = typeof body === "string" ? Buffer.from(body) : body;
    const t = text === null ? null : Buffer.from(text);
    const head = Buffer.allocUnsafe(HEAD);
    head.writeUInt32LE(j.length, 0);
    head.writeInt32LE(t === null ? kind : t.length, 4);
    this.#pending.push(head, j);
    if (t) this.#pending.push(t);
    this.#pendingBytes += HEAD + j.length + (t?.length ?? 0);
  }

  #flush(): void {
    if (!this.#pending.length) return;
    const buf = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    for (let offset = 0; offset < buf.length; ) {
      const n = writeSync(this.#fd, buf, offset, buf.length - offset, this.#writeAt);
      offset += n;
      this.#writeAt += n;
    }
    if (this.#progress) {
      Atomics.store(this.#progress, 0, BigInt(this.#writeAt));
      Atomics.notify(this.#progress, 0);
    }
  }
}

/**
 * The operations of a file `OpSpoolWriter` writes, in order, as they are written (synchronous:
 * usable in a transaction); returns the end frame's value. Without `progress`, the file is
 * complete already.
 */
export function* readOps<E, Op extends DecidedOp | SnapshotOp = DecidedOp>(
  path: string,
  progress: OpProgress | null = null,
  stallMs = STALL_MS,
): Generator<Op, E> {
  const rows = new RowsDecoder();
  /** Bytes of the file read so far, and those of them not consumed yet (from `at`). */
  let position = 0;
  let data: Buffer = Buffer.alloc(0);
  let at = 0;
  /** Bytes of the file that may be read: all of it, or what the writer says it wrote. */
  const readable = (): number => {
    if (!progress) return Number.POSITIVE_INFINITY;
    let written = Atomics.load(progress, 0);
    let heartbeat = Atomics.load(progress, 2);
    let since = Date.now();
    while (BigInt(position) >= written && Atomics.load(progress, 1) === 0n) {
      // Woken by the writer's next flush; its heartbeat checked every second meanwhile.
      Atomics.wait(progress, 0, written, Math.min(1000, stallMs));
      written = Atomics.load(progress, 0);
      const now = Atomics.load(progress, 2);
      if (now !== heartbeat) since = Date.now();
      else if (Date.now() - since > stallMs)
        throw new Error(`the plan reader's worker thread stopped reading ${stallMs / 1000} s ago (${path})`);
      heartbeat = now;
    }
    return Number(Atomics.load(progress, 0));
  };
  /** At least `n` bytes from `at` in `data`, reading on (waiting for the writer); false at the end. */
  const have = (n: number): boolean => {
    while (data.length - at < n) {
      // A new buffer (the views handed out stay as they are): the bytes not consumed yet (part
      // of one frame) copied to its start, the file read into the rest (not read, then copied).
      const rest = data.subarray(at);
      const next = Buffer.allocUnsafe(rest.length + Math.max(FLUSH_BYTES, n - rest.length));
      rest.copy(next, 0);
      const limit = Math.min(next.length - rest.length, readable() - position);
      const got = limit > 0 ? readAt(path, next.subarray(rest.length), limit, position) : 0;
      if (got === 0) return false;
      position += got;
      data = next.subarray(0, rest.length + got);
      at = 0;
    }
    return true;
  };
  for (;;) {
    if (!have(HEAD)) throw new Error(`the decided operations' file ends before its end frame (${path})`);
    const bodyLength = data.readUInt32LE(at);
    const textLength = data.readInt32LE(at + 4);
    const frame = HEAD + bodyLength + Math.max(0, textLength);
    if (!have(frame)) throw new Error(`the decided operations' file ends inside an operation (${path})`);
    const start = at + HEAD;
    at += frame;
    const textStart = start + bodyLength;
    const textEnd = start + frame - HEAD;
    if (bodyLength > 0 && data[start] === ROWS_MARK) {
      const { rows: plan, hash, op } = decodeRows(rows, data, start, textStart, position - data.length, path);
      if (op === "plan.renormalize") {
        yield { op, plan } as unknown as Op;
        continue;
      }
      if (textLength < 0)
        throw new Error(`the decided operations' file holds a plan without its text (${path})`);
      // The text's bytes as written (a view: `data` is never written to again), no string made.
      yield { op, plan, rawJson: data.subarray(textStart, textEnd), hash } as Op;
      continue;
    }
    // Any other operation, and the end frame, may carry an observation's extremes.
    const json = JSON.parse(data.toString("utf8", start, textStart), numbersKept);
    if (textLength === END) return json as E;
    if (textLength === SHAPE) rows.shape(json[0], json[1]);
    else if (textLength === NO_TEXT_KEY) yield json as Op;
    else
      yield {
        ...json,
        rawJson: textLength < 0 ? null : data.toString("utf8", textStart, textEnd),
      } as Op;
  }
}

/** A frame's plan rows; a frame that holds no such rows is refused, saying where it is in the file. */
function decodeRows(
  rows: RowsDecoder,
  data: Buffer,
  start: number,
  end: number,
  dataAt: number,
  path: string,
): ReturnType<RowsDecoder["decode"]> {
  try {
    return rows.decode(data, start, end);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `the decided operations' file holds a bad frame at byte ${dataAt + start - HEAD} (${path}): ${why}`,
    );
  }
}

/**
 * The end frame carries the observer's state, and a replay's schema write its observations,
 * whose minima and maxima may be numbers JSON has no text for (a value of 1e400 parses to
 * Infinity; -0): tagged on the way, back on reading.
 */
const NUMBER_TAG = "\u0000number";

function keepNumbers(_key: string, v: unknown): unknown {
  return typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))
    ? { [NUMBER_TAG]: Object.is(v, -0) ? "-0" : String(v) }
    : v;
}

function numbersKept(_key: string, v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === NUMBER_TAG ? Number((v as Record<string, string>)[NUMBER_TAG]) : v;
}

/**
 * Up to `limit` bytes of the file at `position`. Opened for each read (a megabyte or more):
 * the generator holds no descriptor between its operations, since a consumer that stops early
 * (an abandoned transaction) never resumes it to run a `finally`.
 */
function readAt(path: string, into: Buffer, limit: number, position: number): number {
  const fd = openSync(path, "r");
  try {
    let got = 0;
    while (got < limit) {
      const n = readSync(fd, into, got, limit - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  } finally {
    closeSync(fd);
  }
}
