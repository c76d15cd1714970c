/**
 * A BullMQ queue with its worker and the two Redis connections they use. BullMQ does not
 * close connections it was given, so this owns them and closes all four, in order, without
 * hanging when Redis is away.
 */
import { type Processor as BullProcessor, Queue, Worker, type WorkerOptions } from "bullmq";
import type { Config } from "../config/index.js";
import { withDeadline } from "../deadline.js";
import type { Logger } from "../log.js";
import { createRedis } from "./connection.js";
import type { RedisWatch } from "./redis-watch.js";

type Processor = BullProcessor;

/** How long close() lets a connection that is still opening finish (a live Redis: a round trip). */
const OPENING_MS = 1000;

/** How a worker is doing, for readiness: jobs running, and when it last took one. */
export interface Consumption {
  active: number;
  concurrency: number;
  lastTakenAt: number | null;
}

export class OwnedQueue {
  readonly queue: Queue;
  protected readonly redis: ReturnType<typeof createRedis>;
  #worker: Worker | null = null;
  #workerRedis: ReturnType<typeof createRedis> | null = null;
  #active = 0;
  #concurrency = 0;
  #lastTakenAt: number | null = null;

  /**
   * `readOnly`: the queue is only looked at (`status`): BullMQ then does not write the queue's
   * meta key, which it otherwise does for every Queue it opens.
   */
  constructor(
    readonly name: string,
    protected readonly config: Config,
    protected readonly log: Logger,
    protected readonly watch?: RedisWatch,
    opts: { readOnly?: boolean } = {},
  ) {
    this.redis = this.#connect();
    this.queue = new Queue(name, {
      connection: this.redis,
      prefix: config.queuePrefix,
      ...(opts.readOnly ? { skipMetasUpdate: true } : {}),
    });
    // One line per error at most (Redis gone, say); without a listener BullMQ prints whole stacks.
    this.queue.on("error", (err) => this.#error(err));
  }

  get worker(): Worker | null {
    return this.#worker;
  }

  /** A PING on this queue's connection (readiness: does Redis answer?). */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  consumption(): Consumption {
    return { active: this.#active, concurrency: this.#concurrency, lastTakenAt: this.#lastTakenAt };
  }

  /** Start this queue's one worker (its own connection: workers block on Redis). */
  protected runWorker(processor: Processor, opts: Omit<WorkerOptions, "connection" | "prefix">): Worker {
    this.#workerRedis = this.#connect();
    this.#concurrency = opts.concurrency ?? 1;
    const counted: Processor = async (job, token, signal) => {
      this.#active++;
      this.#lastTakenAt = Date.now();
      try {
        return await processor(job, token, signal);
      } finally {
        this.#active--;
      }
    };
    this.#worker = new Worker(this.name, counted, {
      ...opts,
      connection: this.#workerRedis,
      prefix: this.config.queuePrefix,
    });
    this.#worker.on("error", (err) => this.#error(err));
    return this.#worker;
  }

  /**
   * Let running jobs finish for up to `graceMs` (then `onGraceOver` is called, e.g. to abandon
   * running syncs, and the worker is closed by force), then close the queue and both
   * connections. Never waits on an unreachable Redis for more than the grace period (and
   * OPENING_MS for connections that never opened).
   */
  async close(graceMs = 30_000, onGraceOver?: () => void): Promise<void> {
    await this.#settleOpening();
    if (this.#worker) {
      const finished = (await withDeadline(this.#worker.close(), graceMs)).settled;
      if (!finished) {
        onGraceOver?.();
        await withDeadline(this.#worker.close(true), 5000);
      }
    }
    await withDeadline(this.queue.close(), 2000);
    this.redis.disconnect();
    this.#workerRedis?.disconnect();
  }

  /**
   * BullMQ reads Redis's version on a connection as it opens, and drops the connection's
   * listeners when it closes: a read still in flight, cut off by the disconnect at the end of
   * close(), then rejected with nobody to hear it (an unhandled "Connection is closed.": a
   * command that failed before it used its queue). The reads end first: at once on a live Redis;
   * on one that does not answer, the opening waits for a connection and ends cleanly with it.
   */
  async #settleOpening(): Promise<void> {
    const opening = [this.queue.waitUntilReady(), ...(this.#worker ? [this.#worker.waitUntilReady()] : [])];
    await withDeadline(Promise.allSettled(opening), OPENING_MS);
  }

  #connect() {
    const redis = createRedis(this.config.redisUrl);
    this.watch?.watch(redis);
    return redis;
  }

  #error(err: Error): void {
    if (this.watch) this.watch.noteError(err.message);
    else this.log.warn({ queue: this.name, err: err.message }, "queue error");
  }
}
