/**
 * The store's side of retention: one batch of one table at a time, each in its own short
 * transaction. Which rows may go (their age, what must stay) is decided by the caller
 * (retention/prune.ts) and passed in; an operation examines at most `limit` rows after its
 * cursor, removes (or, dry, counts) those that may go, and says where to go on.
 */

/** The tables a prune removes rows from, in the order it visits them. */
export const PRUNED_TABLES = [
  "rejected_records",
  "sync_errors",
  "sync_runs",
  "scenario_requests",
  "seed_rejections",
  "schema_changes",
] as const;
export type PrunedTable = (typeof PRUNED_TABLES)[number];

export interface PruneBatch<C> {
  /** Rows older than this (ISO 8601) may go. */
  before: string;
  /** Where the previous batch stopped (null: from the start). */
  after: C | null;
  /** Rows examined at most. */
  limit: number;
  /** Count what would go, remove nothing. */
  dryRun: boolean;
}

/** Runs that stay whatever their age (and whose rejected records stay with them). */
export interface KeptRuns {
  keep: readonly number[];
}

export interface RunPruneBatch extends PruneBatch<number>, KeptRuns {
  /**
   * Rejected records of runs older than this go (retention.rejected); null: they stay, and so
   * do their runs. A run whose rejected records stay, stays.
   */
  rejectedBefore: string | null;
  /** Also remove the run records themselves, not only their errors. */
  runs: boolean;
}

export interface PruneResult<C> {
  removed: Partial<Record<PrunedTable, number>>;
  /** Cursor of the next batch; null when this table is done. */
  next: C | null;
}

export interface RetentionStore {
  /**
   * Runs a prune must keep: each company's newest run and newest success (freshness, replay),
   * and the run each company's applied snapshot names (sync_state.applied_run_id).
   */
  keptRuns(): Promise<number[]>;
  /**
   * Errors (sync_errors) of runs started before `before`, and those runs themselves when
   * nothing points at them: none that is running or kept, none that changed records (plan and
   * report versions name it), none that rejected records still name, none that the observed
   * schema names (schema_changes, schema_paths).
   */
  pruneRuns(batch: RunPruneBatch): Promise<PruneResult<number>>;
  /**
   * Rejected records of runs started before `before`, except those of kept runs. Written against
   * rejected_records as it is today (one row per run that saw a record): once a row stands for a
   * distinct content seen by many runs, this is the one operation to change (last_seen_at).
   */
  pruneRejectedRecords(batch: PruneBatch<number> & KeptRuns): Promise<PruneResult<number>>;
  /**
   * Settled push rows (created, exists, failed) last changed before `before`, unless a row that
   * stays names one as its parent; and seed_rejections recorded before it (its own cursor).
   */
  prunePushRows(batch: PruneBatch<string>): Promise<PruneResult<string>>;
  pruneSeedRejections(batch: PruneBatch<number>): Promise<PruneResult<number>>;
  /** Acknowledged schema changes detected before `before` (open ones stay). */
  pruneSchemaChanges(batch: PruneBatch<number>): Promise<PruneResult<number>>;
}
