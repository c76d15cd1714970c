/**
 * The plan list as it arrives, element by element, held against the company's index: an
 * element whose bytes hash to a plan the company has is that plan, unchanged (or back from
 * deletion), and is neither kept nor parsed. Only new or changed elements are kept, read
 * (parsed, checked, normalized) and decided (./fresh-decisions.ts), never by the thread that
 * holds the snapshot's transaction:
 *
 * - while they fit in a budget, in memory as bytes, read on the main thread once the download
 *   is over, before the transaction opens (a sync that finds a few changes);
 * - past it, every one from then on goes to a spool file, and a worker thread reads and decides
 *   them as they arrive (./fresh-reader.ts), during the download and, for a long list's tail,
 *   while the transaction writes what it decided before: it writes the decisions to a file of
 *   its own that the transaction only decodes. The list is never held whole, nor its rows: rows kept alive while
 *   thousands more are made teach V8 that the normalizer's objects live long, and it then
 *   allocates every later row in the old generation (pretenuring: about 100 MB more RSS in
 *   bench:sync's full sync).
 */
import { readPlan } from "../normalize/read.js";
import type { SnapshotIndex } from "../store/port-snapshot.js";
import { contentHash } from "./content-hash.js";
import { type Decided, type DecidedOp, type DecisionTally, FreshDecisions } from "./fresh-decisions.js";
import type { DecidedEnd } from "./fresh-messages.js";
import { FreshReader } from "./fresh-reader.js";
import type { RunObserver } from "./observing.js";
import type { OpProgress } from "./op-spool.js";
import { readOps, type Waits } from "./op-spool-reader.js";
import { Spool } from "./spool.js";

export { contentHash } from "./content-hash.js";

/** Bytes of new or changed elements read on the main thread; past them, a worker reads them all. */
const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * Elements the worker may have left to read when the list is in, and still be waited for before
 * the transaction opens: a short tail (and the thread's start) is read before the write lock is
 * taken; a long one (a first sync of 100,000 plans) is read beside the writes, which it keeps
 * ahead of (bench:sync: the transaction waited 0 ms for it).
 */
const SETTLE_ELEMENTS = 5000;

/**
 * Bytes of elements that the company's newest sync rejected, kept in memory beside that budget:
 * a list that keeps a large bad element must not write it to a spool file run after run.
 */
const REJECTED_AGAIN_BYTES = 16 * 1024 * 1024;

export interface ReceiverOptions {
  companyId: number;
  /** The run's observer (null: the run does not observe). */
  observer: RunObserver | null;
  readAheadBytes?: number;
  /** Elements left to the worker that are still read before the transaction (SETTLE_ELEMENTS). */
  settleElements?: number;
}

/** What the new or changed elements became: the operations, in list order; then their tally. */
export type ListDecisions = Generator<DecidedOp, DecisionTally>;

export class PlanListReceiver {
  readonly #plans: SnapshotIndex["plans"];
  readonly #opts: ReceiverOptions;
  readonly #readAhead: number;
  /** Elements received (complete ones) and their bytes. */
  count = 0;
  bytes = 0;
  /** How many elements are new or changed. */
  freshCount = 0;
  /** Known plans whose content arrived unchanged: id -> position of that element. */
  matched = new Map<number, number>();
  /** Of those, the ones that were deleted and come back (rare): their bytes, observed again. */
  revivals = new Map<number, Buffer>();
  /** New or changed elements within the budget: copies of their bytes. */
  #ahead: { position: number; hash: string; bytes: Buffer }[] = [];
  #aheadBytes = 0;
  #rejectedBytes = 0;
  #spool: Spool | null = null;
  #reader: FreshReader | null = null;
  /** Elements in the spool not yet flushed to its file (told to the reader when they are). */
  #unflushed: { positions: number[]; hashes: string[] } = { positions: [], hashes: [] };
  #decided: (() => ListDecisions) | null = null;
  #waits: Waits | null = null;

  constructor(plans: SnapshotIndex["plans"], opts: ReceiverOptions) {
    this.#plans = plans;
    this.#opts = opts;
    this.#readAhead = opts.readAheadBytes ?? READ_AHEAD_BYTES;
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
      this.#reader?.matched(known, position);
      if (this.#plans.known.isDeleted(known)) this.revivals.set(known, Buffer.from(bytes));
      return;
    }
    this.freshCount++;
    const again = this.#plans.rejected.has(h) && this.#rejectedBytes + bytes.length <= REJECTED_AGAIN_BYTES;
    if (again) this.#rejectedBytes += bytes.length;
    if (!this.#spool) {
      if (again || this.#aheadBytes + bytes.length <= this.#readAhead) {
        if (!again) this.#aheadBytes += bytes.length;
        // A copy: the slice would keep the network chunk it points into.
        this.#ahead.push({ position, hash: h, bytes: Buffer.from(bytes) });
        return;
      }
      this.#startReader();
    }
    if (again) {
      // Not through the spool file either: handed over as it is, after what the file holds.
      this.#spool?.flush();
      this.#reader?.inline([{ position, hash: h, bytes }]);
      return;
    }
    // Before the append, which may flush (and tell the reader of) the element.
    this.#unflushed.positions.push(position);
    this.#unflushed.hashes.push(h);
    (this.#spool as Spool).append(bytes);
  }

  /** Past the budget: the worker gets what came so far, and from now on every new or changed element. */
  #startReader(): void {
    const spool = new Spool((from, to) => {
      const { positions, hashes } = this.#unflushed;
      this.#unflushed = { positions: [], hashes: [] };
      this.#reader?.spooled(from, to, positions, hashes);
    });
    this.#spool = spool;
    const reader = new FreshReader(this.#opts.companyId, this.#opts.observer, spool);
    this.#reader = reader;
    for (const [id, position] of this.matched) reader.matched(id, position);
    reader.inline(this.#ahead);
    this.#ahead = [];
  }

  /**
   * Once the list is in (whole or broken off), before the snapshot's transaction: reads and
   * decides the elements kept in memory; or, past the budget, tells the worker thread the list is
   * in (it reads on while the transaction writes what it decided).
   */
  read(): void {
    const { companyId, observer } = this.#opts;
    if (this.#reader) {
      this.#spool?.flush();
      this.#reader.finish();
      const { path, progress } = this.#reader.decided;
      const waits = { ms: 0 };
      this.#waits = waits;
      this.#decided = () => fromWorker(path, progress, observer, waits);
      return;
    }
    const decisions = new FreshDecisions(companyId, observer, (id) => this.matched.get(id));
    const ops: Decided[] = [];
    for (const { position, hash, bytes } of this.#ahead) {
      const d = decisions.decide({ position, hash, read: readPlan(bytes) });
      if (d) ops.push(d);
    }
    this.#ahead = [];
    this.#decided = function* () {
      yield* ops;
      return decisions;
    };
  }

  /**
   * After `read`, before the transaction: a worker with a short tail left (SETTLE_ELEMENTS)
   * finishes it first.
   */
  async settle(): Promise<void> {
    await this.#reader?.settle(this.#opts.settleElements ?? SETTLE_ELEMENTS);
  }

  /** The decisions, as `read` made them (once: the worker's are read as they are written). */
  decided(): ListDecisions {
    const decided = this.#decided;
    if (!decided) throw new Error("the plan list's elements were not read (PlanListReceiver.read)");
    this.#decided = null;
    return decided();
  }

  /**
   * How long the snapshot's transaction waited for the worker thread's decisions, ms: the part of
   * the write lock that reading held (null: no worker read the list).
   */
  get readerWaitMs(): number | null {
    return this.#waits?.ms ?? null;
  }

  /** Forget everything (the list is being fetched again). */
  reset(): void {
    this.dispose();
    this.count = 0;
    this.bytes = 0;
    this.freshCount = 0;
    this.matched = new Map();
    this.revivals = new Map();
    this.#ahead = [];
    this.#aheadBytes = 0;
    this.#rejectedBytes = 0;
    this.#unflushed = { positions: [], hashes: [] };
    this.#decided = null;
    this.#waits = null;
  }

  /** Stops the worker and deletes the files, if any. */
  dispose(): void {
    this.#reader?.dispose();
    this.#reader = null;
    this.#spool?.dispose();
    this.#spool = null;
  }
}

/** The worker's decisions, as it writes them; then their tally, and what its observer saw. */
function* fromWorker(
  path: string,
  progress: OpProgress,
  observer: RunObserver | null,
  waits: Waits,
): ListDecisions {
  const end = yield* readOps<DecidedEnd>(path, progress, { waits });
  if ("error" in end) throw new Error(`the plan reader's worker thread failed: ${end.error}`);
  if (observer && end.observer) observer.takeBack(end.observer);
  const seen = new Map(end.seenIds.map((id, k) => [id, end.seenPositions[k] as number]));
  const { anonymous, foreignCount, foreignCompany } = end;
  return { seen, anonymous, foreignCount, foreignCompany };
}
