/** What the fresh reader (./fresh-reader.ts) and its worker thread (./fresh-worker.ts) say to each other. */
import type { ObserverHandOver, ObserverState } from "./observing.js";
import type { OpProgress } from "./op-spool.js";

export interface WorkerData {
  companyId: number;
  /** The run's observer as it is when the worker starts; null: the run does not observe. */
  observer: ObserverHandOver | null;
  /** Where the worker writes its decisions (a spool folder of this process). */
  dir: string;
  /**
   * The plan list's spool file, open for reading, and the decisions' file, open for writing:
   * opened by the main thread, and closed by it once the thread has stopped (a deleted spool
   * file held open keeps its space).
   */
  spoolFd: number;
  decidedFd: number;
  /** How far the decisions' file is written (shared with its reader). */
  progress: OpProgress;
}

interface Matched {
  /** Known plans received unchanged since the previous message: id, position in the list. */
  matchedIds: Float64Array;
  matchedPositions: Float64Array;
}

export type ToWorker =
  | (Matched & {
      type: "inline";
      /** The elements' bytes, one after the other; each ends at `ends[k]`. */
      data: ArrayBuffer;
      ends: Uint32Array;
      positions: Float64Array;
      hashes: string[];
    })
  | (Matched & {
      type: "spooled";
      /** A run of the spool file's lines, one per element. */
      from: number;
      to: number;
      positions: Float64Array;
      hashes: string[];
    })
  | (Matched & { type: "end" });

/** The end frame of the decisions' file: what they leave for the snapshot, or why there are none. */
export type DecidedEnd =
  | {
      /** The decisions' tally (./fresh-decisions.ts): seen as two lists. */
      seenIds: number[];
      seenPositions: number[];
      anonymous: number;
      foreignCount: number;
      foreignCompany: number;
      /** What the worker's observer observed, from the state it was handed. */
      observer: ObserverState | null;
    }
  | { error: string };
