/** Wait until every row of a push batch is settled, reporting progress. */
import type { Sqlite } from "../store/db.js";
import { type StatusCounts, statusCounts, unsettledCount } from "../store/outbox.js";

export interface WaitOptions {
  pollMs?: number;
  signal?: AbortSignal;
  /** Rows of the batch settled so far (created, exists or failed). */
  onProgress?: (settled: number) => void;
  /** Checked each poll: a reason to stop waiting (e.g. the queue was paused), or null. */
  check?: () => Promise<string | null>;
}

export type WaitResult =
  | { done: true; counts: StatusCounts }
  | { done: false; counts: StatusCounts; reason: string };

export async function waitForBatch(
  sqlite: Sqlite,
  batchId: string,
  opts: WaitOptions = {},
): Promise<WaitResult> {
  const total = Object.values(statusCounts(sqlite, batchId)).reduce((a, b) => a + b, 0);
  for (;;) {
    // Each poll counts only the rows still open: counts by status would read every row of
    // the batch twice a second, a few percent of a core on a 100,000-row push.
    const open = unsettledCount(sqlite, batchId);
    opts.onProgress?.(total - open);
    if (open === 0) return { done: true, counts: statusCounts(sqlite, batchId) };
    if (opts.signal?.aborted)
      return { done: false, counts: statusCounts(sqlite, batchId), reason: "interrupted" };
    const stop = await opts.check?.();
    if (stop) return { done: false, counts: statusCounts(sqlite, batchId), reason: stop };
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 500));
  }
}
