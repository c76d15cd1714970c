/**
 * A rate limit shared by every process on the same Redis: each call reserves the next free
 * slot (slots 1/rate apart, on Redis's clock) and sleeps until it. Slots are evenly spaced, so
 * no calendar second ever holds more than the limit (BullMQ's windowed limiter allows bursts
 * at window edges that would).
 */
import type { Redis } from "ioredis";

const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nxt)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', 60000)
return slot - now`;

export class SharedRateLimiter {
  readonly #intervalUs: number;
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    perSecond: number,
  ) {
    this.#intervalUs = Math.ceil(1_000_000 / perSecond);
  }

  async acquire(): Promise<void> {
    const waitUs = Number(await this.redis.eval(RESERVE, 1, this.key, String(this.#intervalUs)));
    if (waitUs > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitUs / 1000)));
  }
}
