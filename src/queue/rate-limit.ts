/**
 * A rate limit shared by every process on the same Redis: each call reserves the next free
 * slot (slots evenly spaced, on Redis's clock) and sleeps until it. Even spacing means no
 * calendar second holds more slots than the limit (BullMQ's windowed limiter allows bursts at
 * window edges that would).
 *
 * A request reaches the service a little after its slot, and that delay varies (timers, GC,
 * the network): with slots exactly 1/limit apart, a late request from the end of one second
 * can land in the next, full one. So the schedule runs 2% under the limit; the slack absorbs
 * up to ~15 ms of such jitter per second.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

const HEADROOM = 0.98;
/** Most slots one call reserves (for that many jobs waiting at once). */
const MAX_BATCH = 64;

const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nxt)
redis.call('SET', KEYS[1], tostring(slot + interval * count), 'PX', 60000)
return slot - now`;
const RESERVE_SHA = createHash("sha1").update(RESERVE).digest("hex");

interface Waiter {
  resolve(atMs: number): void;
  reject(err: unknown): void;
}

/**
 * Callers of this process waiting together get consecutive slots from one Redis call (the
 * slots they would have got one call each), so a busy worker makes one round trip per batch,
 * not per job.
 */
export class SharedRateLimiter {
  readonly #intervalUs: number;
  #waiting: Waiter[] = [];
  #reserving = false;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    perSecond: number,
  ) {
    this.#intervalUs = Math.ceil(1_000_000 / (perSecond * HEADROOM));
  }

  /** Resolves at the caller's slot. */
  async acquire(): Promise<void> {
    const at = await new Promise<number>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#pump();
    });
    const waitMs = at - performance.now();
    if (waitMs >= 0.5) await new Promise((resolve) => setTimeout(resolve, Math.round(waitMs)));
  }

  #pump(): void {
    if (this.#reserving || this.#waiting.length === 0) return;
    this.#reserving = true;
    const batch = this.#waiting.splice(0, MAX_BATCH);
    this.#reserve(batch.length)
      .then((waitUs) => {
        const first = performance.now() + waitUs / 1000;
        for (const [i, w] of batch.entries()) w.resolve(first + (i * this.#intervalUs) / 1000);
      })
      .catch((err: unknown) => {
        for (const w of batch) w.reject(err);
      })
      .finally(() => {
        this.#reserving = false;
        this.#pump();
      });
  }

  /** Reserves `count` consecutive slots; returns µs until the first. EVALSHA, EVAL if not cached. */
  async #reserve(count: number): Promise<number> {
    const args = [String(this.#intervalUs), String(count)];
    try {
      return Number(await this.redis.evalsha(RESERVE_SHA, 1, this.key, ...args));
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      return Number(await this.redis.eval(RESERVE, 1, this.key, ...args));
    }
  }
}
