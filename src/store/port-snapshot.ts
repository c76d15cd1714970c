/**
 * Applying one company's snapshot. The sync reads the company's index first (what the
 * database holds, outside any write transaction), decides against it what changes while the
 * list downloads, and hands the store the operations; the store writes them in one transaction,
 * unless a newer snapshot was applied meanwhile (superseded) or the company's data moved since
 * the index was read (stale: nothing is written, and the sync starts again).
 */

import type { SchemaWrite } from "../observed/port.js";
import type { PlanRowSet, ReportRowSet } from "../tables/index.js";
import type { KnownRecord, PlanIndex } from "./plan-index.js";
import type { RunEnd, SyncErrorRecord } from "./port-runs.js";

export type { KnownRecord } from "./plan-index.js";

/** What the database holds for a company, read at one moment. */
export interface SnapshotIndex {
  /** The company's write generation then (sync_state.write_generation). */
  generation: number;
  plans: {
    /** The company's plans, live or deleted, by id and by content hash. */
    known: PlanIndex;
    /** Plans of the company in unlisted_plans: missing from a list since their last sighting. */
    unlisted: Set<number>;
    /** Content hashes of the plan elements the company's newest sync rejected (v_rejected_now). */
    rejected: Set<string>;
  };
  /** The run's reports that the database knows. */
  reports: Map<number, KnownRecord>;
}

/**
 * A record's JSON text as stored (raw_json): the text, or its UTF-8 bytes as the plan reader's
 * worker thread wrote them (the SQLite store binds those as text, making no string of them; the
 * PostgreSQL store makes the string first). The stored text is the same either way.
 */
export type RawText = string | Buffer;

/** The text of a RawText. */
export const rawText = (raw: RawText): string => (typeof raw === "string" ? raw : raw.toString("utf8"));

/** One change of a snapshot. Timestamps are the run's start (the snapshot's time). */
export type SnapshotOp =
  /** A plan not among the company's (it may exist under another company: then it moves). */
  | { op: "plan.insert"; plan: PlanRowSet; rawJson: RawText; hash: string }
  /** A known plan whose content changed (live or deleted). */
  | { op: "plan.update"; plan: PlanRowSet; rawJson: RawText; hash: string }
  /** A deleted plan came back with the content it had. */
  | { op: "plan.revive"; id: number; hash: string }
  /** A stored plan's rows made again from its stored text (replay): no new version, no sighting. */
  | { op: "plan.renormalize"; plan: PlanRowSet }
  /**
   * A live plan missing from a list whose deletions were held back: its last sighting is kept
   * (unlisted_plans), since the list's own (sync_state.plans_seen_at) does not hold for it.
   */
  | { op: "plan.unlisted"; id: number }
  /** An unlisted plan is in a list again (or no longer the company's live plan): no longer unlisted. */
  | { op: "plan.listed"; id: number }
  | { op: "plan.delete"; id: number }
  | { op: "report.write"; report: ReportRowSet; rawJson: string; hash: string; known: boolean }
  | { op: "report.revive"; id: number; hash: string }
  | { op: "report.renormalize"; report: ReportRowSet }
  | { op: "report.touch"; id: number }
  | { op: "report.delete"; id: number }
  | {
      op: "reject";
      entity: "plan" | "scheduled_report";
      entityId: number | null;
      reason: string;
      rawJson: string | null;
      /** contentHash of rawJson (of "" when there is none): with the id, what makes it the same content. */
      hash: string;
    }
  | ({ op: "error" } & SyncErrorRecord)
  /** The run's observations of the service (see port-schema.ts). */
  | { op: "schema.write"; write: SchemaWrite };

/** A stored record's JSON text, as read before a snapshot's transaction. */
export interface StoredRecord {
  entity: "plan" | "scheduled_report";
  id: number;
  rawJson: string;
}

/**
 * Which stored texts to read: `live` every live record of the company, `rejected` the records
 * its newest sync (not a replay) rejected (with an id and a text), or the live ones among ids.
 */
export type StoredSelection = "live" | "rejected" | { plans: readonly number[]; reports: readonly number[] };

/** How a snapshot ends, known once its last operation is out. */
export interface SnapshotEnd {
  run: Omit<RunEnd, "finishedAt">;
  /** The plan list was complete (deletions applied): every live plan of the company was in it. */
  plansListed: boolean;
  /**
   * The plan list was applied, complete or not: every live plan of the company was in it but
   * those its `plan.unlisted` operations name (now or before) (sync_state.plans_seen_at).
   */
  plansSeen: boolean;
  /**
   * Its `reject` operations are what the company has rejected now (a sync that applied; not a
   * replay): a rejection not met again ends its episode.
   */
  rejections: boolean;
}

/**
 * The operations of a snapshot, decided against an index and what was read before it: a plain
 * sequence of writes (the store answers none of them); its return value ends the run.
 */
export type SnapshotOps = Generator<SnapshotOp, SnapshotEnd, undefined>;

export interface SnapshotMeta {
  companyId: number;
  runId: number;
  /** The run's start: the snapshot is at least this new. Stamps versions, sightings, deletions. */
  startedAt: string;
  /** The generation of the index the operations were decided against. */
  generation: number;
  /** The moment the run ends (asked once the last operation is written). */
  finishedAt: () => string;
}

export type ApplyResult =
  /** `writeMs`: how long the write transaction was open (SQLite: the database's write lock). */
  | { applied: true; end: RunEnd; writeMs: number }
  /** A snapshot fetched later was applied first: nothing was written, the run is superseded. */
  | { applied: false; reason: "superseded"; newerStartedAt: string; newerRunId: number | null }
  /** The company's data changed after its index was read: nothing was written. */
  | { applied: false; reason: "stale" };

export interface SnapshotStore {
  /** The company's index now, and its reports among `reportIds` (narrow reads, no write lock). */
  index(companyId: number, reportIds: readonly number[]): Promise<SnapshotIndex>;
  /**
   * The selected stored texts of the company, outside any transaction (what a snapshot needs
   * of them is read before it is applied), in pages: plans, then reports, each by id.
   */
  stored(companyId: number, which: StoredSelection, visit: (r: StoredRecord) => void): Promise<void>;
  /**
   * In one transaction: unless a newer snapshot of the company was applied or its generation
   * moved, write every operation `ops` yields, end the run, and record the snapshot as applied
   * (generation bumped). `signal` abandons a transaction still writing (nothing of it stays).
   */
  apply(meta: SnapshotMeta, ops: SnapshotOps, signal?: AbortSignal): Promise<ApplyResult>;
}
