/**
 * The plan list as it arrives, element by element, held against the company's index: an
 * element whose bytes hash to a plan the company has is that plan, unchanged (or back from
 * deletion), and is neither kept nor parsed. Only new or changed elements are kept: in memory
 * as bytes while they fit in a budget, read (parsed, checked, normalized) once the download is
 * over and before the write transaction opens; spooled beyond it, and read while the snapshot
 * is written.
 *
 * Read before the transaction only when all of them fit (a sync that finds a few changes):
 * rows kept alive while thousands more are made teach V8 that the normalizer's objects live
 * long, and it then allocates every later row in the old generation (pretenuring): four to
 * eight times the promoted bytes, and about 100 MB more RSS in bench:sync's full sync.
 */
import { hash } from "node:crypto";
import { type PlanRead, readPlan } from "../normalize/read.js";
import type { SnapshotIndex } from "../store/port-snapshot.js";
import { Spool } from "./spool.js";

/** Bytes of new or changed elements read during the download; the rest waits in the spool. */
const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * Bytes of elements that the company's newest sync rejected, kept in memory beside that budget:
 * a list that keeps a large bad element must not write it to a spool file run after run.
 */
const REJECTED_AGAIN_BYTES = 16 * 1024 * 1024;

/** SHA-256 (hex) of a record as received (its UTF-8 bytes): the content_hash column. */
export function contentHash(bytes: Uint8Array | string): string {
  return hash("sha256", bytes, "hex");
}

/** A new or changed element: where it was in the list, its hash, and what reading it gave. */
export interface Fresh {
  position: number;
  hash: string;
  read: PlanRead;
}

export class PlanListReceiver {
  readonly #plans: SnapshotIndex["plans"];
  readonly #readAhead: number;
  /** Elements received (complete ones) and their bytes. */
  count = 0;
  bytes = 0;
  /** Known plans whose content arrived unchanged: id -> position of that element. */
  matched = new Map<number, number>();
  /** Of those, the ones that were deleted and come back (rare): their bytes, observed again. */
  revivals = new Map<number, Buffer>();
  /** New or changed elements within the budget: copies of their bytes, read by `readAhead`. */
  #ahead: { position: number; hash: string; bytes: Buffer }[] = [];
  #aheadBytes = 0;
  #rejectedBytes = 0;
  #read: Fresh[] = [];
  #spool: Spool | null = null;
  #spilled: { position: number; hash: string }[] = [];

  constructor(plans: SnapshotIndex["plans"], readAheadBytes = READ_AHEAD_BYTES) {
    this.#plans = plans;
    this.#readAhead = readAheadBytes;
  }

  /** One complete element of the list, as received. */
  add(bytes: Buffer): void {
    const position = this.count++;
    this.bytes += bytes.length;
    const h = contentHash(bytes);
    const known = this.#plans.known.idOfHash(h);
    // A second identical copy is read like a new element: it is then rejected as a duplicate.
    if (known !== undefined && !this.matched.has(known)) {
      this.matched.set(known, position);
      if (this.#plans.known.isDeleted(known)) this.revivals.set(known, Buffer.from(bytes));
      return;
    }
    const again = this.#plans.rejected.has(h) && this.#rejectedBytes + bytes.length <= REJECTED_AGAIN_BYTES;
    if (again) this.#rejectedBytes += bytes.length;
    if (again || this.#aheadBytes + bytes.length <= this.#readAhead) {
      if (!again) this.#aheadBytes += bytes.length;
      // A copy: the slice would keep the network chunk it points into.
      this.#ahead.push({ position, hash: h, bytes: Buffer.from(bytes) });
      return;
    }
    this.#spool ??= new Spool();
    this.#spool.append(bytes);
    this.#spilled.push({ position, hash: h });
  }

  /**
   * Reads the elements kept in memory, before the write transaction opens, when they are all
   * the new or changed ones; otherwise they are read in turn with the spooled ones.
   */
  readAhead(): void {
    if (this.#spool) return;
    for (const { position, hash, bytes } of this.#ahead) {
      this.#read.push({ position, hash, read: readPlan(bytes) });
    }
    this.#ahead = [];
  }

  /**
   * The new or changed elements, in list order; the spooled ones are read as they are reached
   * (each is read when the consumer asks for the next).
   */
  *fresh(): Generator<Fresh> {
    yield* this.#read;
    for (const { position, hash, bytes } of this.#ahead) yield { position, hash, read: readPlan(bytes) };
    if (!this.#spool) return;
    const spilled = this.#spilled;
    let k = 0;
    for (const bytes of this.#spool.records()) {
      if (k >= spilled.length) break;
      const at = spilled[k++] as { position: number; hash: string };
      yield { position: at.position, hash: at.hash, read: readPlan(bytes) };
    }
  }

  /** How many elements are new or changed. */
  get freshCount(): number {
    return this.#ahead.length + this.#read.length + this.#spilled.length;
  }

  /** Forget everything (the list is being fetched again). */
  reset(): void {
    this.dispose();
    this.count = 0;
    this.bytes = 0;
    this.matched = new Map();
    this.revivals = new Map();
    this.#ahead = [];
    this.#aheadBytes = 0;
    this.#rejectedBytes = 0;
    this.#read = [];
    this.#spilled = [];
  }

  /** Deletes the spool, if any. */
  dispose(): void {
    this.#spool?.dispose();
    this.#spool = null;
  }
}
