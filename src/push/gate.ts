/**
 * Who waits: a job whose key this process is already running, and the rows held back by a 429.
 * After a 429: The service's rate limits are not documented (API-FACTS); a limit per
 * token is the common kind, so by default a 429 holds back only the company whose token got
 * it, and the other companies' rows go on (push.rateLimitScope "company"). A service that
 * limits per host counts every company's requests together: with "host", a 429 holds back every
 * company. Either way the caps we keep ourselves apply too: push.ratePerSecond (all workers,
 * all companies) and http.maxRequestsPerSecond (per process, per host).
 *
 * In this process only: each worker learns from the 429s it meets. A waiting row's job waits
 * delayed in the queue, holding no worker slot.
 */
export type RateLimitScope = "company" | "host";

/** A 429 without Retry-After: wait this long (the service said nothing). */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

export class RateLimitGate {
  readonly #until = new Map<number | "host", number>();

  constructor(
    readonly scope: RateLimitScope = "company",
    private readonly now: () => number = Date.now,
  ) {}

  /** How long a row of this company must still wait before it is sent; 0: send now. */
  wait(companyId: number): number {
    const until = this.#until.get(this.#key(companyId));
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.#until.delete(this.#key(companyId));
    return 0;
  }

  /** A 429 for this company: its scope waits `retryAfterMs` (at least). Returns how long from now. */
  limited(companyId: number, retryAfterMs: number | null): number {
    const key = this.#key(companyId);
    const until = Math.max(
      this.#until.get(key) ?? 0,
      this.now() + (retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS),
    );
    this.#until.set(key, until);
    return until - this.now();
  }

  #key(companyId: number): number | "host" {
    return this.scope === "host" ? "host" : companyId;
  }
}

/** How long a job waits for the same key's job that this process is still running. */
export const SAME_KEY_WAIT_MS = 1000;

/**
 * One job per key at a time in this process. Another job of the same key can only appear when
 * Redis lost the first (it came back empty and the reconciler added it again): it runs later.
 */
export class OnePerKey {
  readonly #running = new Set<string>();

  async run<T>(
    key: string,
    job: () => Promise<T>,
  ): Promise<T | { status: "later"; delayMs: number; reason: string }> {
    if (this.#running.has(key))
      return { status: "later", delayMs: SAME_KEY_WAIT_MS, reason: "this process is running the key's job" };
    this.#running.add(key);
    try {
      return await job();
    } finally {
      this.#running.delete(key);
    }
  }
}
