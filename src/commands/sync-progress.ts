/**
 * Progress of a one-shot sync, per company: on a terminal, one line per company redrawn in
 * place (records received, MB, rate); without one, a log line every 10 s at most.
 */
import type { Logger } from "../log.js";
import type { SyncProgress } from "../sync/company.js";

const TTY_EVERY_MS = 200;
const LOG_EVERY_MS = 10_000;

export class SyncProgressView {
  readonly #state = new Map<number, SyncProgress & { since: number }>();
  #last = 0;
  #lines = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    // The first line comes after one interval of work: a short sync logs no progress at all.
    this.#last = now();
  }

  update(p: SyncProgress): void {
    const known = this.#state.get(p.companyId);
    this.#state.set(p.companyId, { ...p, since: known?.since ?? this.now() });
    const t = this.now();
    if (t - this.#last < (this.stream.isTTY ? TTY_EVERY_MS : LOG_EVERY_MS)) return;
    this.#last = t;
    if (this.stream.isTTY) this.#draw();
    else for (const s of this.#state.values()) this.logger.info(this.#fields(s), "sync progress");
  }

  /** A company is done: its line goes (the summary line replaces it). */
  done(companyId: number): void {
    this.#state.delete(companyId);
    if (this.stream.isTTY) this.#draw();
  }

  #fields(s: SyncProgress & { since: number }) {
    const seconds = Math.max(0.001, (this.now() - s.since) / 1000);
    return {
      companyId: s.companyId,
      phase: s.phase,
      records: s.records,
      mb: Number((s.bytes / 1_048_576).toFixed(1)),
      perSecond: Math.round(s.records / seconds),
    };
  }

  #draw(): void {
    // Move up over the previous drawing and clear it, then draw each company's line.
    let out = this.#lines ? `\x1b[${this.#lines}F\x1b[J` : "";
    for (const s of this.#state.values()) {
      const f = this.#fields(s);
      out += `company ${f.companyId}: ${f.phase} ${f.records} records, ${f.mb} MB, ${f.perSecond}/s\n`;
    }
    this.#lines = this.#state.size;
    this.stream.write(out);
  }
}
