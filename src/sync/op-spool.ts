/**
 * Decided operations of the plan list (./fresh-decisions.ts) in a temporary file: written by the
 * fresh reader's worker thread as it decides, read by the snapshot's transaction as they come
 * (the transaction then only decodes and writes them: the worker thread parses, checks and
 * normalizes on the other core meanwhile). Each is a frame: the operation without its text as
 * JSON (a plan to write: its rows as arrays, ./rows-codec.ts), then the text as UTF-8 (a
 * record's text is JSON itself: escaped inside a JSON string it would cost twice). The last
 * frame is the end: what the decisions leave for the snapshot.
 *
 *   u32 length of the JSON | i32 length of the text (-1: none; -2: the end frame; -3: a row
 *   shape) | JSON | text
 *
 * How far the file is written is shared with the reader (`progress`, a SharedArrayBuffer:
 * bytes written, then 1 once the end frame is in), so the reader waits for the writer
 * without a message (a SQLite transaction holds the event loop).
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Decided } from "./fresh-decisions.js";
import { RowsDecoder, RowsEncoder } from "./rows-codec.js";

const FLUSH_BYTES = 1 << 20;
const HEAD = 8;
const NO_TEXT = -1;
const END = -2;
const SHAPE = -3;
/** The reader gives up on a writer that wrote nothing for this long (a thread gone). */
const STALL_MS = 120_000;

/** Bytes written ([0]) and whether the end frame is in ([1]), shared between the two threads. */
export type OpProgress = BigInt64Array;

/** The decisions' file in a spool folder. */
export const decidedPath = (dir: string): string => join(dir, "decided.bin");

export function opProgress(): OpProgress {
  return new BigInt64Array(new SharedArrayBuffer(16));
}

export class OpSpoolWriter {
  readonly path: string;
  readonly #fd: number;
  readonly #progress: OpProgress | null;
  readonly #rows = new RowsEncoder((id, keys) => this.#frame(JSON.stringify([id, keys]), null, SHAPE));
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #writeAt = 0;
  count = 0;

  constructor(dir: string, progress: OpProgress | null = null) {
    this.path = decidedPath(dir);
    this.#fd = openSync(this.path, "w");
    this.#progress = progress;
  }

  append(d: Decided): void {
    if (d.op === "plan.write") this.#frame(this.#rows.encode(d.plan, d.hash), d.rawJson);
    else {
      const { rawJson, ...rest } = d;
      this.#frame(JSON.stringify(rest), rawJson);
    }
    this.count++;
    if (this.#pendingBytes >= FLUSH_BYTES) this.#flush();
  }

  /** The end frame (`end`: any JSON value), written with all that is pending; then closes. */
  end(end: unknown): void {
    this.#frame(JSON.stringify(end), null, END);
    this.#flush();
    closeSync(this.#fd);
    if (this.#progress) {
      Atomics.store(this.#progress, 1, 1n);
      Atomics.notify(this.#progress, 0);
    }
  }

  #frame(json: string, text: string | null, kind = NO_TEXT): void {
    const j = Buffer.from(json);
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
export function* readOps<E>(path: string, progress: OpProgress | null = null): Generator<Decided, E> {
  const fd = openSync(path, "r");
  try {
    const rows = new RowsDecoder();
    /** Bytes of the file read so far, and those of them not consumed yet (from `at`). */
    let position = 0;
    let data: Buffer = Buffer.alloc(0);
    let at = 0;
    /** Bytes of the file that may be read: all of it, or what the writer says it wrote. */
    const readable = (): number => {
      if (!progress) return Number.POSITIVE_INFINITY;
      let written = Atomics.load(progress, 0);
      let since = Date.now();
      while (BigInt(position) >= written && Atomics.load(progress, 1) === 0n) {
        // Woken by the writer's next flush; checked again every second.
        if (Atomics.wait(progress, 0, written, 1000) === "timed-out" && Date.now() - since > STALL_MS)
          throw new Error(`the plan reader's worker thread wrote nothing for ${STALL_MS / 1000} s (${path})`);
        const now = Atomics.load(progress, 0);
        if (now !== written) since = Date.now();
        written = now;
      }
      return Number(Atomics.load(progress, 0));
    };
    /** At least `n` bytes from `at` in `data`, reading on (waiting for the writer); false at the end. */
    const have = (n: number): boolean => {
      while (data.length - at < n) {
        const rest = data.subarray(at);
        const chunk = Buffer.allocUnsafe(Math.max(FLUSH_BYTES, n - rest.length));
        const limit = Math.min(chunk.length, readable() - position);
        const got = limit > 0 ? readSync(fd, chunk, 0, limit, position) : 0;
        if (got === 0) return false;
        position += got;
        data = rest.length ? Buffer.concat([rest, chunk.subarray(0, got)]) : chunk.subarray(0, got);
        at = 0;
      }
      return true;
    };
    for (;;) {
      if (!have(HEAD)) throw new Error(`the decided operations' file ends before its end frame (${path})`);
      const jsonLength = data.readUInt32LE(at);
      const textLength = data.readInt32LE(at + 4);
      const frame = HEAD + jsonLength + Math.max(0, textLength);
      if (!have(frame)) throw new Error(`the decided operations' file ends inside an operation (${path})`);
      const start = at + HEAD;
      const json = JSON.parse(data.toString("utf8", start, start + jsonLength));
      at += frame;
      if (textLength === END) return json as E;
      if (textLength === SHAPE) {
        rows.shape(json[0], json[1]);
        continue;
      }
      const text = textLength < 0 ? null : data.toString("utf8", start + jsonLength, start + frame - HEAD);
      if (Array.isArray(json)) {
        const { rows: plan, hash } = rows.decode(json);
        yield { op: "plan.write", plan, rawJson: text as string, hash };
      } else yield { ...json, rawJson: text } as Decided;
    }
  } finally {
    closeSync(fd);
  }
}
