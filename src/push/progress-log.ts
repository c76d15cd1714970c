/**
 * A push worker's progress in the log: one info line every `every` settled rows or `ms` of
 * time, whichever comes first (never one per create; each create is logged at debug).
 */
import type { Logger } from "../log.js";

type Outcome = "created" | "exists" | "failed" | "retry" | "blocked" | "held" | "skipped";

export class PushProgressLog {
  readonly #counts: Record<Outcome, number> = {
    created: 0,
    exists: 0,
    failed: 0,
    retry: 0,
    blocked: 0,
    held: 0,
    skipped: 0,
  };
  #sinceLine = 0;
  #lastLine: number;
  #lastTotal = 0;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly every = 1000,
    private readonly ms = 10_000,
  ) {
    this.#lastLine = now();
  }

  note(outcome: Outcome): void {
    this.#counts[outcome]++;
    this.#sinceLine++;
    const t = this.now();
    if (this.#sinceLine < this.every && t - this.#lastLine < this.ms) return;
    const settled = this.#counts.created + this.#counts.exists + this.#counts.failed;
    const perSecond = ((settled - this.#lastTotal) / Math.max(0.001, (t - this.#lastLine) / 1000)).toFixed(1);
    this.logger.info({ ...this.#counts, perSecond: Number(perSecond) }, "push progress");
    this.#sinceLine = 0;
    this.#lastLine = t;
    this.#lastTotal = settled;
  }
}
