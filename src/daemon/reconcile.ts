/**
 * Now and then (and when Redis comes back, maybe empty), give a job to every push row left
 * queued without one, and queue children whose parent got created meanwhile. Job ids make
 * re-adding a job that exists a no-op.
 */
import type { Logger } from "../log.js";
import { keysToRequeue } from "../push/submit.js";
import type { PushQueue } from "../queue/push.js";
import type { OutboxStore } from "../store/port-outbox.js";

export const RECONCILE_MS = 60_000;

export class PushReconciler {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(
    private readonly queue: PushQueue,
    private readonly outbox: OutboxStore,
    private readonly logger: Logger,
    private readonly everyMs = RECONCILE_MS,
  ) {}

  /** Re-queue now (one at a time); logs `message` when it queued anything. Returns how many. */
  requeue(message: string): Promise<number> {
    this.#running ??= (async () => {
      try {
        const keys = await keysToRequeue(this.outbox, new Date().toISOString());
        await this.queue.enqueue(keys);
        if (keys.length) this.logger.info({ rows: keys.length }, message);
        return keys.length;
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.requeue("re-queued push rows that had no job").catch((err: Error) =>
        this.logger.warn({ err: err.message }, "re-queue of push rows failed"),
      );
    }, this.everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
