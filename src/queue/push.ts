/**
 * The push queue: enqueue outbox rows, run create-scenario workers. The queue never pauses for
 * one company: a company whose credentials are refused has its rows held (push/held.ts), and a
 * 429 delays only the jobs it concerns (push/gate.ts), which wait delayed, holding no slot.
 */
import { DelayedError, type Job, type Worker } from "bullmq";
import * as createJob from "../../jobs/create-scenario.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { PushFailureLog } from "../push/failure-log.js";
import { OnePerKey, RateLimitGate } from "../push/gate.js";
import { PushProgressLog } from "../push/progress-log.js";
import type { PushJobs } from "../push/reconcile.js";
import { settleAbandoned } from "../push/settle.js";
import type { Clients } from "../runtime.js";
import type { OutboxStore } from "../store/port-outbox.js";
import type { Telemetry } from "../telemetry.js";
import { OwnedQueue } from "./owned-queue.js";
import { SharedRateLimiter } from "./rate-limit.js";
import type { RedisWatch } from "./redis-watch.js";

export const PUSH_QUEUE = "push";
const ENQUEUE_CHUNK = 1000;
const ENQUEUE_IN_FLIGHT = 4;

export interface PushQueueDeps {
  cfg: Config;
  outbox: OutboxStore;
  clients: Clients;
  logger: Logger;
  telemetry?: Telemetry;
  watch?: RedisWatch;
}

export class PushQueue extends OwnedQueue implements PushJobs {
  constructor(private readonly deps: PushQueueDeps) {
    super(PUSH_QUEUE, deps.cfg, deps.logger, deps.watch);
  }

  /** Add one job per key, in bulk; keys that already have a job are not added twice. */
  async enqueue(keys: readonly string[]): Promise<void> {
    const max = this.deps.cfg.push.maxAttempts;
    // A few chunks in flight on the one connection: Redis adds one chunk while this process
    // builds the next (one at a time left each side idle half the time). Redis still runs
    // them in order, so jobs stay first in, first out.
    const inFlight = new Set<Promise<unknown>>();
    for (let i = 0; i < keys.length; i += ENQUEUE_CHUNK) {
      const chunk = keys.slice(i, i + ENQUEUE_CHUNK);
      const added: Promise<unknown> = this.#dropFinished(chunk)
        .then(() =>
          this.queue.addBulk(
            chunk.map((key) => ({
              name: createJob.NAME,
              data: { key },
              opts: createJob.jobOptions(key, max),
            })),
          ),
        )
        .finally(() => inFlight.delete(added));
      inFlight.add(added);
      if (inFlight.size >= ENQUEUE_IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  }

  /**
   * Finished jobs are kept by count for the dashboard, under the key's stable id: one left for
   * a key queued again (a held row released, a blocked row whose parent got its id) would make
   * the new add a no-op. Two commands per chunk find them; finding none is the usual case.
   */
  async #dropFinished(keys: readonly string[]): Promise<void> {
    const ids = keys.map((k) => createJob.jobId(k));
    const finished = await Promise.all(
      [this.queue.toKey("completed"), this.queue.toKey("failed")].map(
        (set) => this.redis.zmscore(set, ...ids) as Promise<(string | null)[]>,
      ),
    );
    const stale = ids.filter((_, i) => finished.some((scores) => scores[i] !== null));
    await Promise.all(stale.map((id) => this.queue.remove(id)));
  }

  /** Remove jobs left behind for keys about to be queued again (retry-failed). */
  async forget(keys: readonly string[]): Promise<void> {
    // A chunk of removals at a time on the one connection (pipelined), not a round trip per key.
    for (let i = 0; i < keys.length; i += ENQUEUE_CHUNK)
      await Promise.all(
        keys.slice(i, i + ENQUEUE_CHUNK).map((key) => this.queue.remove(createJob.jobId(key))),
      );
  }

  /** `rowsLogLevel`: of the line per row that ends failed or held (push/failure-log.ts). */
  startWorker(opts: { lockDurationMs?: number; rowsLogLevel?: "warn" | "info" } = {}): Worker {
    const { cfg, logger } = this.deps;
    const rate = cfg.push.ratePerSecond;
    // No shared limit configured: no slot to take (not even a Redis call per batch).
    const limiter =
      rate === null ? null : new SharedRateLimiter(this.redis, `${cfg.queuePrefix}:${PUSH_QUEUE}:rate`, rate);
    // One line per row that ends failed or held, rate-limited across this worker's jobs.
    const failures = new PushFailureLog(this.deps.outbox, logger, { level: opts.rowsLogLevel ?? "warn" });
    const deps = {
      outbox: this.deps.outbox,
      clientFor: (id: number) => this.deps.clients.clientFor(id),
      ...(limiter ? { acquireSlot: () => limiter.acquire() } : {}),
      gate: new RateLimitGate(cfg.push.rateLimitScope),
      uniqueNames: cfg.push.uniqueNames,
      ...(this.deps.telemetry ? { telemetry: this.deps.telemetry } : {}),
      logger,
      settled: failures,
    };
    const lockMs = opts.lockDurationMs ?? cfg.push.lockDurationMs;
    const progress = new PushProgressLog(logger);
    const onePerKey = new OnePerKey();
    const later = async (job: Job, token: string | undefined, ms: number): Promise<never> => {
      await job.moveToDelayed(Date.now() + ms, token);
      throw new DelayedError();
    };
    const worker = this.runWorker(
      async (job: Job, token?: string) => {
        let result: Awaited<ReturnType<typeof createJob.process>>;
        try {
          result = await onePerKey.run(String(job.data?.key), () =>
            createJob.process(
              job.data,
              {
                made: job.attemptsMade,
                max: job.opts.attempts ?? 1,
                // Each time the job was moved back to delayed it started once more.
                rateLimitWaits: Math.max(0, (job.attemptsStarted ?? 1) - job.attemptsMade - 1),
              },
              deps,
            ),
          );
        } catch (err) {
          if (err instanceof createJob.RetryLaterError) progress.note("retry");
          throw err;
        }
        // Not the row's fault (a 429, the same key running here): back to delayed without using
        // up one of its attempts.
        if (result.status === "later") return later(job, token, result.delayMs);
        progress.note(result.status);
        if (result.ready.length) await this.enqueue(result.ready);
        return result.status;
      },
      {
        concurrency: cfg.push.concurrency,
        lockDuration: lockMs,
        stalledInterval: Math.min(30_000, lockMs),
      },
    );
    // Rows not logged one by one yet get their summary line before the worker is gone.
    worker.on("closed", () => failures.flush());
    worker.on("failed", (job, err) => {
      if (!job) return;
      if (!(err instanceof createJob.RetryLaterError))
        logger.warn({ key: job.data?.key, err: err.message }, "push job failed");
      // Failed for good: push policy settles its row (push/settle.ts).
      if (job.attemptsMade >= (job.opts.attempts ?? 1)) {
        settleAbandoned(this.deps.outbox, String(job.data?.key), err.message, (keys) =>
          failures.failed(keys),
        ).catch((e: Error) =>
          logger.error({ key: job.data?.key, err: e.message }, "could not settle the row of a failed job"),
        );
      }
    });
    return worker;
  }
}
