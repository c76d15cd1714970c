/**
 * A BullMQ queue with its worker and the two Redis connections they use. BullMQ does not
 * close connections it was given, so this owns them and closes all four, in order.
 */
import { Queue, Worker, type WorkerOptions } from "bullmq";
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { createRedis } from "./connection.js";

type Processor = ConstructorParameters<typeof Worker>[1];

export class OwnedQueue {
  readonly queue: Queue;
  protected readonly redis: ReturnType<typeof createRedis>;
  #worker: Worker | null = null;
  #workerRedis: ReturnType<typeof createRedis> | null = null;

  constructor(
    readonly name: string,
    protected readonly config: Config,
    log: Logger,
  ) {
    this.redis = createRedis(config.redisUrl);
    this.queue = new Queue(name, { connection: this.redis, prefix: config.queuePrefix });
    // One line per error (Redis gone, say); without a listener BullMQ prints whole stacks.
    this.queue.on("error", (err) => log.warn({ queue: name, err: err.message }, "queue error"));
  }

  /** Start this queue's one worker (its own connection: workers block on Redis). */
  protected runWorker(processor: Processor, opts: Omit<WorkerOptions, "connection" | "prefix">): Worker {
    this.#workerRedis = createRedis(this.config.redisUrl);
    this.#worker = new Worker(this.name, processor, {
      ...opts,
      connection: this.#workerRedis,
      prefix: this.config.queuePrefix,
    });
    return this.#worker;
  }

  /** Let running jobs finish, then close the worker, the queue and both connections. */
  async close(): Promise<void> {
    await this.#worker?.close();
    await this.queue.close();
    this.redis.disconnect();
    this.#workerRedis?.disconnect();
  }
}
