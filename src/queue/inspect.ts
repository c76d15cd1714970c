/** Reading the queues' state without running a worker: counts by state, pause, schedulers. */
import { companyOfScheduler } from "../../jobs/sync-company.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { OwnedQueue } from "./owned-queue.js";
import { PUSH_QUEUE } from "./push.js";
import { SYNC_QUEUE } from "./sync.js";

export const JOB_STATES = [
  "waiting",
  "active",
  "delayed",
  "prioritized",
  "failed",
  "completed",
  "paused",
] as const;

/**
 * Only the newest finished push jobs are kept (by count, for the dashboard; the outbox row keeps
 * the outcome), so the push queue's completed and failed counts would say 1000 beside "created
 * 20000" in the outbox: they are left out, and the outbox alone counts settled pushes.
 */
const PUSH_JOB_STATES = JOB_STATES.filter((s) => s !== "completed" && s !== "failed");

export interface QueueState {
  name: string;
  paused: boolean;
  counts: Partial<Record<(typeof JOB_STATES)[number], number>>;
}

export interface QueuesSnapshot {
  queues: QueueState[];
  /** Next run of each company's sync scheduler (ms since the epoch). */
  nextSync: Map<number, number>;
  /** Workers connected to Redis now, per queue: a running daemon has one on each it serves. */
  workers: { sync: number; push: number };
}

export async function readQueueState(q: OwnedQueue): Promise<QueueState> {
  const states = q.name === PUSH_QUEUE ? PUSH_JOB_STATES : JOB_STATES;
  const counts = (await q.queue.getJobCounts(...states)) as QueueState["counts"];
  return { name: q.name, paused: await q.queue.isPaused(), counts };
}

/** Next run of each company's sync scheduler (ms since the epoch). */
export async function nextSyncRuns(sync: OwnedQueue): Promise<Map<number, number>> {
  const next = new Map<number, number>();
  for (const s of await sync.queue.getJobSchedulers()) {
    const id = companyOfScheduler(s.key ?? "");
    if (id !== null && typeof s.next === "number") next.set(id, s.next);
  }
  return next;
}

/** Both queues' state and the sync schedulers' next runs, with connections of its own. */
export async function inspectQueues(cfg: Config, logger: Logger): Promise<QueuesSnapshot> {
  // Looked at only: nothing of `status` is written to Redis.
  const sync = new OwnedQueue(SYNC_QUEUE, cfg, logger, undefined, { readOnly: true });
  const push = new OwnedQueue(PUSH_QUEUE, cfg, logger, undefined, { readOnly: true });
  try {
    const queues = [await readQueueState(sync), await readQueueState(push)];
    const workers = { sync: await sync.queue.getWorkersCount(), push: await push.queue.getWorkersCount() };
    return { queues, nextSync: await nextSyncRuns(sync), workers };
  } finally {
    await sync.close();
    await push.close();
  }
}
