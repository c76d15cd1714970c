/**
 * One view of Redis for a process with several connections (queues, workers): an outage is
 * logged once when it starts, at most once a minute while it lasts, and once when Redis is back
 * ("redis reconnected after 14.2 s"); never a line per failed command. Whoever needs to act on
 * a comeback (recreate schedulers, re-queue rows: Redis may have come back empty) subscribes.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../log.js";

const REMIND_MS = 60_000;
const LOST_JOB = /^Missing (key|lock) for job /;
const CONNECTION = /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Socket closed/i;

export class RedisWatch {
  readonly #down = new Set<Redis>();
  #since: number | null = null;
  #lastLine = 0;
  #lastError = "";
  readonly #onBack: (() => void)[] = [];
  #lostJobs = 0;
  #lostTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly where: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether every watched connection is up. */
  get up(): boolean {
    return this.#since === null;
  }

  /** Since when Redis is away (ms since the epoch), or null. */
  get downSince(): number | null {
    return this.#since;
  }

  get lastError(): string {
    return this.#lastError;
  }

  /** Calls `fn` each time Redis comes back after an outage. */
  onReconnect(fn: () => void): void {
    this.#onBack.push(fn);
  }

  watch(redis: Redis): Redis {
    redis.on("error", (err: NodeJS.ErrnoException) => this.#lost(redis, err.code ?? err.message));
    redis.on("close", () => {
      if (redis.status !== "end") this.#lost(redis, "connection closed");
    });
    redis.on("ready", () => this.#back(redis));
    return redis;
  }

  /** An error from BullMQ (a command that failed while Redis is away): counted, not printed each time. */
  noteError(message: string): void {
    // Jobs that were running when Redis went away empty: BullMQ cannot finish them. Expected,
    // and harmless (their rows are queued again): one line for all of them.
    if (LOST_JOB.test(message)) {
      this.#lostJobs++;
      this.#lostTimer ??= setTimeout(() => {
        this.logger.info(
          { redis: this.where, jobs: this.#lostJobs },
          "jobs that were running when Redis went away were lost with its data; their rows are queued again",
        );
        this.#lostJobs = 0;
        this.#lostTimer = null;
      }, 1000).unref();
      return;
    }
    if (this.#since === null) {
      // A command cut by a connection that is going (or just came back): the connection's own
      // events say whether Redis is away; a line per such command is the burst to avoid.
      if (CONNECTION.test(message)) {
        this.#lastError = message;
        this.logger.debug({ redis: this.where, err: message }, "redis command cut by its connection");
        return;
      }
      this.logger.warn({ redis: this.where, err: message }, "redis error");
      return;
    }
    this.#lastError = message;
    this.#remind();
  }

  #lost(redis: Redis, why: string): void {
    this.#lastError = why;
    this.#down.add(redis);
    if (this.#since !== null) {
      this.#remind();
      return;
    }
    this.#since = this.now();
    this.#lastLine = this.#since;
    this.logger.error({ redis: this.where, err: why }, "redis connection lost; retrying");
  }

  #remind(): void {
    const t = this.now();
    if (this.#since === null || t - this.#lastLine < REMIND_MS) return;
    this.#lastLine = t;
    const seconds = ((t - this.#since) / 1000).toFixed(0);
    this.logger.error(
      { redis: this.where, err: this.#lastError },
      `redis still unreachable after ${seconds} s`,
    );
  }

  #back(redis: Redis): void {
    this.#down.delete(redis);
    if (this.#since === null || this.#down.size > 0) return;
    const seconds = ((this.now() - this.#since) / 1000).toFixed(1);
    this.#since = null;
    this.logger.info({ redis: this.where }, `redis reconnected after ${seconds} s`);
    for (const fn of this.#onBack) fn();
  }
}
