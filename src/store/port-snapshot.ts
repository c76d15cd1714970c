/**
 * Applying one company's snapshot: sync/ decides what changes (a generator of operations, run
 * inside the store's transaction), the store writes them. The SQLite adapter drives the
 * generator synchronously inside one IMMEDIATE transaction; the PostgreSQL one in one
 * transaction under the company's advisory lock, writing in batches.
 */
import type { NormalizedPlan, NormalizedReport } from "../normalize/types.js";
import type { RunEnd, SyncErrorRecord } from "./port-runs.js";

export interface KnownRecord {
  hash: string;
  deleted: boolean;
}

/** What the database holds for the company when its transaction begins. */
export interface SnapshotIndex {
  plans: {
    /** Content hash -> plan id (any of the company's plans, live or deleted). */
    byHash: Map<string, number>;
    byId: Map<number, KnownRecord>;
  };
  /** The run's reports that the database knows. */
  reports: Map<number, KnownRecord>;
}

/** One change of a snapshot. Timestamps are the run's start (the snapshot's time). */
export type SnapshotOp =
  /** A plan not among the company's (it may exist under another company: then it moves). */
  | { op: "plan.insert"; plan: NormalizedPlan; rawJson: string; hash: string }
  | { op: "plan.update"; plan: NormalizedPlan; rawJson: string; hash: string }
  /** A deleted plan came back with the same content. */
  | { op: "plan.revive"; id: number; rawJson: string; hash: string }
  /** Seen, unchanged (only written one by one when deletions are held back). */
  | { op: "plan.touch"; id: number }
  /** Every live plan of the company was in the complete list. */
  | { op: "plan.touchAllLive" }
  | { op: "plan.delete"; id: number }
  | { op: "report.write"; report: NormalizedReport; rawJson: string; hash: string; known: boolean }
  | { op: "report.revive"; id: number; rawJson: string; hash: string }
  | { op: "report.touch"; id: number }
  | { op: "report.delete"; id: number }
  | {
      op: "reject";
      entity: "plan" | "scheduled_report";
      entityId: number | null;
      reason: string;
      rawJson: string | null;
    }
  | ({ op: "error" } & SyncErrorRecord);

export interface SnapshotMeta {
  companyId: number;
  runId: number;
  /** The run's start: the snapshot is at least this new. Stamps versions and deletions. */
  startedAt: string;
  reportIds: readonly number[];
  /** The moment the run ends (asked once the last operation is written). */
  finishedAt: () => string;
}

/** The operations of a snapshot; its return value ends the run (status, counts, error). */
export type SnapshotPlan = (index: SnapshotIndex) => Generator<SnapshotOp, Omit<RunEnd, "finishedAt">>;

export type ApplyResult =
  | { applied: true; end: RunEnd }
  /** A snapshot fetched later was applied first: nothing was written, the run is superseded. */
  | { applied: false; newerStartedAt: string; newerRunId: number | null };

export interface SnapshotStore {
  /**
   * In one transaction: unless a newer snapshot of the company was applied, load its index,
   * write every operation `plan` yields, end the run, and record this snapshot as applied.
   * `signal` abandons a transaction still writing (nothing of it stays).
   */
  apply(meta: SnapshotMeta, plan: SnapshotPlan, signal?: AbortSignal): Promise<ApplyResult>;
}
