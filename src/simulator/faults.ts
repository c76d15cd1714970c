/**
 * Fault injection settings and the seeded dice that decide, per request, whether a fault
 * fires. Seeded dice make a failing benchmark or test run reproducible.
 */
import { Rng } from "./prng.js";

export interface FaultOptions {
  /** Fraction of /api requests answered 500. */
  errorRate: number;
  /** Fraction of /api requests answered 429 with Retry-After. */
  rateLimitRate: number;
  retryAfterSeconds: number;
  /** Delay before answering each /api request. */
  latencyMs: number;
  /** Fraction of successful creates whose socket is destroyed after the scenario is stored, before any byte. */
  dropAfterCommitRate: number;
  /**
   * Delay before the first byte of every GET /api/plans (not reports, not creates). The list
   * is the one at the moment the request arrived.
   */
  planListDelayMs: number;
  /** Delay of the next GET /api/plans only; the option then resets itself to 0. */
  planListDelayOnceMs: number;
  /** Fraction of /api requests answered only after `slowMs` (to outlast a client's timeout). */
  slowRate: number;
  slowMs: number;
  /** When a 429 fires, this many following /api requests are answered 429 too. */
  rateLimitBurst: number;
  /**
   * Fraction of successful creates that are stored, answered with the headers and half the
   * body, and then have their connection cut.
   */
  dropHalfRate: number;
  /**
   * 1: a repeated (project, name) is created again instead of refused with 400
   * INVALID_SCENARIO_NAME. The real service refuses it (API-FACTS); a client must not need it
   * to create each scenario once, and GET __admin/creates then shows any scenario made twice.
   */
  namesNotUnique: number;
  /**
   * A company id (0: none) whose tokens are refused: its tokens, static or issued, get 401 on
   * /api. The token endpoint still grants it tokens (each of them then refused), as when an
   * account is disabled for the API; a wrong password is refused there as ever.
   */
  refuseCompanyId: number;
  /** A company id (0: every company): the 429 faults apply only to requests with its token. */
  rateLimitCompanyId: number;
}

export const DEFAULT_FAULTS: Readonly<FaultOptions> = {
  errorRate: 0,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  latencyMs: 0,
  dropAfterCommitRate: 0,
  planListDelayMs: 0,
  planListDelayOnceMs: 0,
  slowRate: 0,
  // Twice tas-sync's default http.timeoutMs: a slow request outlasts a default client.
  slowMs: 60_000,
  rateLimitBurst: 0,
  dropHalfRate: 0,
  namesNotUnique: 0,
  refuseCompanyId: 0,
  rateLimitCompanyId: 0,
};

const RATES = new Set<keyof FaultOptions>([
  "errorRate",
  "rateLimitRate",
  "dropAfterCommitRate",
  "slowRate",
  "dropHalfRate",
]);
const DELAYS = new Set<keyof FaultOptions>(["latencyMs", "planListDelayMs", "planListDelayOnceMs", "slowMs"]);
const COUNTS = new Set<keyof FaultOptions>(["rateLimitBurst", "refuseCompanyId", "rateLimitCompanyId"]);
const FLAGS = new Set<keyof FaultOptions>(["namesNotUnique"]);
/** Node's timers fire at once beyond this (about 24.8 days). */
const MAX_DELAY_MS = 2_147_483_647;

/** Validates a partial update (from JSON or flags); returns an error text or the clean patch. */
export function parseFaultPatch(
  input: unknown,
): { ok: true; patch: Partial<FaultOptions> } | { ok: false; error: string } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: "faults must be a JSON object" };
  }
  const patch: Partial<FaultOptions> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_FAULTS, key)) return { ok: false, error: `unknown fault option: ${key}` };
    const name = key as keyof FaultOptions;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      return { ok: false, error: `${key} must be a non-negative number` };
    }
    if (RATES.has(name) && value > 1) return { ok: false, error: `${key} must be between 0 and 1` };
    if (DELAYS.has(name) && value > MAX_DELAY_MS)
      return { ok: false, error: `${key} must be at most ${MAX_DELAY_MS} ms` };
    if (COUNTS.has(name) && !Number.isSafeInteger(value))
      return { ok: false, error: `${key} must be a whole number` };
    if (FLAGS.has(name) && value !== 0 && value !== 1) return { ok: false, error: `${key} must be 0 or 1` };
    patch[name] = value;
  }
  return { ok: true, patch };
}

export class FaultDice {
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  /** True with probability `rate`; draws nothing when the rate is 0 so runs without faults stay aligned. */
  roll(rate: number): boolean {
    return rate > 0 && this.rng.next() < rate;
  }
}
