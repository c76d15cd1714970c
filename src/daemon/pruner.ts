/**
 * The daemon's daily prune (retention/prune.ts): the first a few minutes after the start (the
 * first syncs go first), then once a day. Each daemon prunes on its own schedule; a second
 * prune on the same day finds little left and costs a few reads. A stopping daemon stops the
 * prune between two batches. One log line and the metrics per prune.
 */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { describeRemoved, prune } from "../retention/prune.js";
import type { Store } from "../store/port.js";

const PRUNE_EVERY_MS = 24 * 3_600_000;
const FIRST_AFTER_MS = 5 * 60_000;

export interface PrunerDeps {
  retention: Config["retention"];
  store: Store;
  logger: Logger;
  metrics: Pick<Metrics, "pruned"> | null;
  everyMs?: number;
  firstAfterMs?: number;
}

export class Pruner {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  readonly #stop = new AbortController();

  constructor(private readonly deps: PrunerDeps) {}

  start(): void {
    const every = this.deps.everyMs ?? PRUNE_EVERY_MS;
    const tick = (after: number) => {
      this.#timer = setTimeout(() => {
        void this.run().finally(() => {
          if (!this.#stop.signal.aborted) tick(every);
        });
      }, after);
      this.#timer.unref();
    };
    tick(this.deps.firstAfterMs ?? FIRST_AFTER_MS);
  }

  /** One prune now (at most one at a time). */
  run(): Promise<void> {
    this.#running ??= this.#run()
      .catch((err: Error) =>
        this.deps.logger.warn({ err: err.message }, "prune failed (tried again tomorrow)"),
      )
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  async #run(): Promise<void> {
    const { store, logger, metrics } = this.deps;
    const report = await prune(store, this.deps.retention, { signal: this.#stop.signal });
    metrics?.pruned(report.removed, new Date(), report.durationMs / 1000);
    logger.info(
      {
        removed: report.removed,
        batches: report.batches,
        longestBatchMs: report.longestBatchMs,
        slowBatches: report.slowBatches,
        durationMs: report.durationMs,
        ...(report.stopped ? { stopped: true } : {}),
      },
      `pruned ${describeRemoved(report.removed)}${report.stopped ? " (stopped: the daemon is stopping)" : ""}`,
    );
  }

  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#stop.abort();
    await this.#running;
  }
}
