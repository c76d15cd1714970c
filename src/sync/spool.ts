/**
 * A temporary file holding the plan list as received, one record per line, so the list is
 * downloaded without a database transaction open and applied afterwards in one short, purely
 * local transaction. Memory stays flat however long the list is. Records stay bytes end to
 * end: an unchanged record is recognised by the hash of its bytes and never decoded.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { isAlive } from "./owner.js";

const FLUSH_BYTES = 1 << 20;
/** tas-spool-<pid>-XXXXXX: the pid says whose it is, so a dead process's spool can be removed. */
const PREFIX = "tas-spool-";
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const LINE_END = Buffer.from("\n");

export class Spool {
  readonly #dir: string;
  readonly #fd: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #pendingCount = 0;
  #count = 0;
  /** Where the next write goes (positioned writes: the reader reads the same descriptor). */
  #writeAt = 0;

  /** `onFlush`: told of each run of records written to the file (bytes from, to; how many). */
  constructor(private readonly onFlush?: (from: number, to: number, count: number) => void) {
    this.#dir = spoolDir();
    this.#fd = openSync(this.path, "w+");
  }

  /** Its folder (removed with it). */
  get dir(): string {
    return this.#dir;
  }

  /** The file. */
  get path(): string {
    return join(this.#dir, "plans.ndjson");
  }

  get count(): number {
    return this.#count;
  }

  /**
   * One record's JSON bytes. Line breaks can only be whitespace between JSON tokens (inside
   * strings they are escaped), so they become spaces: the record's content is unchanged.
   */
  append(bytes: Buffer): void {
    let line = bytes;
    if (bytes.indexOf(NEWLINE) >= 0 || bytes.indexOf(RETURN) >= 0) {
      line = Buffer.from(bytes);
      for (let i = 0; i < line.length; i++) if (line[i] === NEWLINE || line[i] === RETURN) line[i] = SPACE;
    }
    this.#pending.push(line, LINE_END);
    this.#pendingBytes += line.length + 1;
    this.#pendingCount++;
    this.#count++;
    if (this.#pendingBytes >= FLUSH_BYTES) this.flush();
  }

  /** Every record's bytes, in order (synchronous reads: usable inside a transaction). */
  *records(): Generator<Buffer> {
    this.flush();
    let position = 0;
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      // A fresh buffer per read: the slices handed out must stay valid.
      const chunk = Buffer.allocUnsafe(FLUSH_BYTES);
      const n = readSync(this.#fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      position += n;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let end = data.indexOf(NEWLINE, start); end >= 0; end = data.indexOf(NEWLINE, start)) {
        yield data.subarray(start, end);
        start = end + 1;
      }
      carry = data.subarray(start);
    }
    if (carry.length) yield carry;
  }

  /** Close and delete the file. */
  dispose(): void {
    closeSync(this.#fd);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** Writes what is pending to the file. */
  flush(): void {
    if (!this.#pending.length) return;
    const buf = Buffer.concat(this.#pending, this.#pendingBytes);
    const count = this.#pendingCount;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#pendingCount = 0;
    const from = this.#writeAt;
    for (let offset = 0; offset < buf.length; ) {
      const n = writeSync(this.#fd, buf, offset, buf.length - offset, this.#writeAt);
      offset += n;
      this.#writeAt += n;
    }
    this.onFlush?.(from, this.#writeAt, count);
  }
}

/** A new folder for a spool file of this process (tas-spool-<pid>-XXXXXX). */
export function spoolDir(): string {
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

/** Every line of a run of a spool file's records (`from`, `to`: as `onFlush` told them). */
export function readRun(fd: number, from: number, to: number): Buffer[] {
  const data = Buffer.allocUnsafe(to - from);
  for (let at = 0; at < data.length; ) {
    const n = readSync(fd, data, at, data.length - at, from + at);
    if (n === 0) throw new Error(`the spool file ends at ${from + at}, before ${to}`);
    at += n;
  }
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE, start)) {
    lines.push(data.subarray(start, end));
    start = end + 1;
  }
  return lines;
}

/**
 * Removes the spool folders of processes that died before they could (kill -9, power loss).
 * Returns how many. Folders of live processes, and names of another shape, are left alone.
 */
export function removeDeadSpools(dir = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = /^tas-spool-(\d+)-/.exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
