/**
 * The one reconciler of the push: what gets a job, decided in one place. It queues the rows
 * that became ready, gives a job again to every row left queued without one (its job died
 * with a process, or with a Redis that came back empty; job ids make re-adding a job that
 * exists a no-op), and sends one held row per company to find out whether its credentials
 * work again. The daemon runs it now and then and when Redis comes back; `push --wait` runs
 * it over its batch; retry-failed, set-parent-id and resume-push run it once.
 */
import type { Logger } from "../log.js";
import type { OutboxStore, RowFilter } from "../store/port-outbox.js";
import type { SettledRows } from "./failure-log.js";
import { eachPage, queueReadyInPages, READY_PAGE } from "./settle.js";

/** Where the reconciler's keys go: the push queue (queue/push.ts). */
export interface PushJobs {
  /** Add one job per key; a key that has a job already keeps it. */
  enqueue(keys: readonly string[]): Promise<void>;
  /** Remove jobs left behind for keys about to be queued again (retry-failed). */
  forget(keys: readonly string[]): Promise<void>;
}

/** How many rows a round gave a job (their keys went to the queue a page at a time, not kept). */
export interface Requeued {
  /** Rows that were queued already (their job re-added, or kept). */
  queued: number;
  /** Rows that became ready now. */
  ready: number;
  /** Held rows sent to find out whether their company's credentials work again. */
  probes: number;
}

export interface RequeueOptions {
  filter?: RowFilter;
  /** Also probe held companies (one row each). */
  probe?: boolean;
  /** Logged (info) when anything was enqueued. */
  message?: string;
}

export class PushReconciler {
  #chain: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly jobs: PushJobs,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    /** Told of rows a round fails (children of a failed parent left unsettled by a crash). */
    private readonly settled?: SettledRows,
  ) {}

  /** One round, after any round already running (rounds never overlap). */
  requeue(opts: RequeueOptions = {}): Promise<Requeued> {
    const round = this.#chain.then(() => this.#round(opts));
    this.#chain = round.catch(() => {});
    return round;
  }

  /**
   * Queued rows first, then the rows that became ready, then the probes, a page at a time (a
   * page's keys get their jobs while the next page is read): a round over a million rows holds
   * two pages of keys, not a million.
   */
  async #round({ filter = {}, probe = false, message }: RequeueOptions): Promise<Requeued> {
    const now = this.now().toISOString();
    const queued = await eachPage(
      (after) => this.outbox.queuedKeys(filter, { limit: READY_PAGE, after }),
      (keys) => this.jobs.enqueue(keys),
    );
    const settled = this.settled;
    const ready = await queueReadyInPages(
      this.outbox,
      now,
      filter,
      (keys) => this.jobs.enqueue(keys),
      settled && ((keys) => settled.failed(keys)),
    );
    const probes = probe ? await this.outbox.probeHeld(now) : [];
    if (probes.length) await this.jobs.enqueue(probes);
    const rows = queued + ready + probes.length;
    if (rows && message) this.logger.info({ rows, probes: probes.length }, message);
    return { queued, ready, probes: probes.length };
  }

  /** A round every `everyMs` (push.reconcileEveryMs) until stop(); a failed round is logged, and the next one runs. */
  start(everyMs: number, opts: RequeueOptions = {}): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.requeue(opts).catch((err: Error) =>
        this.logger.warn({ err: err.message }, "re-queue of push rows failed"),
      );
    }, everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
