/**
 * Reading the decided operations' file that ./op-spool.ts writes (its format is said there), as
 * the writer writes it: the snapshot's transaction decodes each operation, and parses no record.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { SnapshotOp } from "../store/port-snapshot.js";
import type { DecidedOp } from "./fresh-decisions.js";
import {
  END,
  FLUSH_BYTES,
  HEAD,
  NO_TEXT_KEY,
  NUMBER_TAG,
  type OpProgress,
  SHAPE,
  STALL_MS,
} from "./op-spool.js";
import { ROWS_MARK, RowsDecoder } from "./rows-codec.js";

/** How long a reader waited for its writer, ms (added to as it waits). */
export interface Waits {
  ms: number;
}

export interface ReadOptions {
  /** How long a writer's heartbeat may stand still before the reader gives up on it. */
  stallMs?: number;
  /** Where the time spent waiting for the writer is added up. */
  waits?: Waits;
}

/**
 * The operations of a file `OpSpoolWriter` writes, in order, as they are written (synchronous:
 * usable in a transaction); returns the end frame's value. Without `progress`, the file is
 * complete already.
 */
export function* readOps<E, Op extends DecidedOp | SnapshotOp = DecidedOp>(
  path: string,
  progress: OpProgress | null = null,
  { stallMs = STALL_MS, waits = { ms: 0 } }: ReadOptions = {},
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
    let began = -1;
    while (BigInt(position) >= written && Atomics.load(progress, 1) === 0n) {
      if (began < 0) began = performance.now();
      // Woken by the writer's next flush; its heartbeat checked every second meanwhile.
      Atomics.wait(progress, 0, written, Math.min(1000, stallMs));
      written = Atomics.load(progress, 0);
      const now = Atomics.load(progress, 2);
      if (now !== heartbeat) since = Date.now();
      else if (Date.now() - since > stallMs)
        throw new Error(`the plan reader's worker thread stopped reading ${stallMs / 1000} s ago (${path})`);
      heartbeat = now;
    }
    if (began >= 0) waits.ms += performance.now() - began;
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
