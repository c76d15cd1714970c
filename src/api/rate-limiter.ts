/** Spaces calls so that no more than `perSecond` start in any second (per host). */
export class RateLimiter {
  readonly #intervalMs: number;
  #next = 0;
  constructor(
    perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = defaultSleep,
  ) {
    this.#intervalMs = 1000 / perSecond;
  }

  /** Resolves when the caller may start its request. */
  async acquire(): Promise<void> {
    const now = this.now();
    const at = Math.max(now, this.#next);
    this.#next = at + this.#intervalMs;
    // A timer cannot wait less than a millisecond: a shorter wait (limits above 1000/s) is
    // not slept, or every caller of a busy millisecond would wait a whole one. The schedule
    // still advances, so any longer stretch keeps to the limit (a start is at most 1 ms early).
    if (at - now >= 1) await this.sleep(at - now);
  }
}

export function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Exponential backoff with jitter: attempt 1 waits ~base, doubling, capped; half of it random. */
export function backoffMs(
  attempt: number,
  random: () => number = Math.random,
  baseMs = 250,
  capMs = 15_000,
): number {
  const exp = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
