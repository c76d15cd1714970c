/**
 * Retention: removing bookkeeping older than the config keeps it (`retention`), in small
 * batches. Each batch is one short transaction of the store (it examines at most `limit` rows;
 * the limit adapts so that a batch takes about `targetMs`), and the prune pauses between
 * batches, so a sync waiting for the database waits at most one batch. No lease is taken: a
 * prune never touches what a sync reads or writes (plans, reports, their versions) nor a run
 * that is running, the newest of a company or one that anything points at.
 * The daemon runs it once a day (daemon/pruner.ts); `tas-sync prune` on demand.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "../config/index.js";
import type { Store } from "../store/port.js";
import { PRUNED_TABLES, type PrunedTable, type PruneResult } from "../store/port-retention.js";

export type Retention = Config["retention"];

export interface PruneOptions {
  dryRun?: boolean;
  now?: Date;
  /** Stops between batches (a daemon stopping); what was removed stays removed. */
  signal?: AbortSignal;
  /** How long a batch may take, about (default 25 ms: a machine three times busier still stays under 100 ms). */
  targetMs?: number;
  /** Pause between batches (default 5 ms), so that waiting writers and the event loop go first. */
  pauseMs?: number;
  /** Rows a batch examines at first (default 250). */
  limit?: number;
}

export interface PruneReport {
  dryRun: boolean;
  /** Rows removed (dry: that would be), per table; every table is named. */
  removed: Record<PrunedTable, number>;
  batches: number;
  /** The longest batch, in ms (its commit included: on SQLite, a WAL checkpoint may run there). */
  longestBatchMs: number;
  /** Batches that took longer than 100 ms. */
  slowBatches: number;
  durationMs: number;
  /** Rows older than these (ISO 8601) were considered; null: that kind is kept for ever. */
  cutoffs: Record<keyof Retention, string | null>;
  /** Stopped before the end (signal). */
  stopped: boolean;
}

const MIN_LIMIT = 20;
const MAX_LIMIT = 1000;

/** The moment before which rows go, per retention key. */
function cutoffsOf(retention: Retention, now: Date): Record<keyof Retention, string | null> {
  const at = (ms: number | null) => (ms === null ? null : new Date(now.getTime() - ms).toISOString());
  return {
    runs: at(retention.runs),
    rejected: at(retention.rejected),
    pushes: at(retention.pushes),
    schemaChanges: at(retention.schemaChanges),
  };
}

/** Removes (or, dry, counts) what `retention` no longer keeps, table by table, batch by batch. */
export async function prune(
  store: Store,
  retention: Retention,
  opts: PruneOptions = {},
): Promise<PruneReport> {
  const started = performance.now();
  const dryRun = opts.dryRun ?? false;
  const targetMs = opts.targetMs ?? 25;
  const pauseMs = opts.pauseMs ?? 5;
  const cutoffs = cutoffsOf(retention, opts.now ?? new Date());
  const removed = Object.fromEntries(PRUNED_TABLES.map((t) => [t, 0])) as Record<PrunedTable, number>;
  let limit = opts.limit ?? 250;
  let batches = 0;
  let longestBatchMs = 0;
  let slowBatches = 0;
  let stopped = false;

  /** One table's pass: batches until its cursor runs out. */
  const pass = async <C>(
    step: (after: C | null, limit: number) => Promise<PruneResult<C>>,
  ): Promise<void> => {
    let after: C | null = null;
    do {
      if (opts.signal?.aborted) {
        stopped = true;
        return;
      }
      const t0 = performance.now();
      const result: PruneResult<C> = await step(after, limit);
      const ms = performance.now() - t0;
      batches++;
      longestBatchMs = Math.max(longestBatchMs, ms);
      if (ms > 100) slowBatches++;
      for (const [table, n] of Object.entries(result.removed)) removed[table as PrunedTable] += n ?? 0;
      // Aim at targetMs a batch: halve after a slow one, grow after a quick one.
      if (ms > targetMs) limit = Math.max(MIN_LIMIT, Math.floor(limit / 2));
      else if (ms < targetMs / 4) limit = Math.min(MAX_LIMIT, limit * 2);
      after = result.next;
      if (after !== null) await sleep(pauseMs);
    } while (after !== null);
  };

  const keep = cutoffs.runs || cutoffs.rejected ? await store.retention.keptRuns() : [];
  const { rejected, runs, pushes, schemaChanges } = cutoffs;
  if (rejected)
    await pass<number>((after, n) =>
      store.retention.pruneRejectedRecords({ before: rejected, after, limit: n, dryRun, keep }),
    );
  if (runs)
    await pass<number>((after, n) =>
      store.retention.pruneRuns({
        before: runs,
        after,
        limit: n,
        dryRun,
        keep,
        rejectedBefore: rejected,
        runs: true,
      }),
    );
  if (pushes) {
    await pass<string>((after, n) =>
      store.retention.prunePushRows({ before: pushes, after, limit: n, dryRun }),
    );
    await pass<number>((after, n) =>
      store.retention.pruneSeedRejections({ before: pushes, after, limit: n, dryRun }),
    );
  }
  if (schemaChanges)
    await pass<number>((after, n) =>
      store.retention.pruneSchemaChanges({ before: schemaChanges, after, limit: n, dryRun }),
    );
  return {
    dryRun,
    removed,
    batches,
    longestBatchMs: Math.round(longestBatchMs),
    slowBatches,
    durationMs: Math.round(performance.now() - started),
    cutoffs,
    stopped,
  };
}

/** "sync_runs 12, sync_errors 3" (tables with rows only; "nothing" when none). */
export function describeRemoved(removed: Record<PrunedTable, number>): string {
  const parts = PRUNED_TABLES.filter((t) => removed[t] > 0).map((t) => `${t} ${removed[t]}`);
  return parts.length ? parts.join(", ") : "nothing";
}
