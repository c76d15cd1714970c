/** Wait until every row of a push batch is settled, reporting progress. */
import type { Sqlite } from "../store/db.js";
import { type StatusCounts, statusCounts } from "../store/outbox.js";

export interface WaitOptions {
  pollMs?: number;
  signal?: AbortSignal;
  onProgress?: (counts: StatusCounts) => void;
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
  for (;;) {
    const counts = statusCounts(sqlite, batchId);
    opts.onProgress?.(counts);
    if (counts.pending + counts.queued === 0) return { done: true, counts };
    if (opts.signal?.aborted) return { done: false, counts, reason: "interrupted" };
    const stop = await opts.check?.();
    if (stop) return { done: false, counts, reason: stop };
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 500));
  }
}
