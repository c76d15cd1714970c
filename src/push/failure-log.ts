/**
 * A push row that ends failed or held gets one log line, in the process that settled it: its
 * key, company, reason code and the whole reason, as the outbox stored them. When thousands
 * fail (a wrong project id in a large seed file), the first `perWindow` of each window are
 * logged one by one and the rest as one summary line at the window's end.
 */
import type { Logger } from "../log.js";
import type { OutboxStore } from "../store/port-outbox.js";

/** What the create path tells of rows it settled (push/create.ts; absent: nothing is logged). */
export interface SettledRows {
  /** Rows that ended failed: a row, or a row and the rows below it (PARENT_FAILED). */
  failed(keys: readonly string[]): Promise<void>;
  /** A row held because its company's credentials are refused. */
  held(key: string): Promise<void>;
}

export interface FailureLogOptions {
  now?: () => number;
  /** Rows logged one by one per window (default 20). */
  perWindow?: number;
  /** The window, in ms (default 60 s). */
  windowMs?: number;
  /** Runs `fn` after `ms`; returns a cancel. Default: an unref'd timer. */
  schedule?: (fn: () => void, ms: number) => () => void;
  /**
   * The lines' level: warn in the daemon (default); info in `push --wait`, whose own summary
   * counts the failures on stdout (a terminal then shows them with -v only).
   */
  level?: "warn" | "info";
}

type Ending = "failed" | "held";

const unrefTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export class PushFailureLog implements SettledRows {
  readonly #now: () => number;
  readonly #perWindow: number;
  readonly #windowMs: number;
  readonly #schedule: (fn: () => void, ms: number) => () => void;
  readonly #level: "warn" | "info";
  #windowStart: number;
  #logged = 0;
  readonly #unlogged: Record<Ending, number> = { failed: 0, held: 0 };
  #cancel: (() => void) | null = null;

  constructor(
    private readonly outbox: Pick<OutboxStore, "get">,
    private readonly logger: Logger,
    opts: FailureLogOptions = {},
  ) {
    this.#now = opts.now ?? Date.now;
    this.#perWindow = opts.perWindow ?? 20;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#schedule = opts.schedule ?? unrefTimer;
    this.#level = opts.level ?? "warn";
    this.#windowStart = this.#now();
  }

  async failed(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.#note(key, "failed");
  }

  held(key: string): Promise<void> {
    return this.#note(key, "held");
  }

  /** Writes the summary of rows not logged one by one, if any, and starts a new window. */
  flush(): void {
    this.#cancel?.();
    this.#cancel = null;
    const { failed, held } = this.#unlogged;
    const seconds = Math.max(1, Math.round((this.#now() - this.#windowStart) / 1000));
    if (failed + held > 0)
      this.logger[this.#level](
        { failed, held, seconds },
        `${failed + held} more push row(s) ended failed (${failed}) or held (${held}) in the last ${seconds} s, not logged one by one: tas-sync push-failures lists them`,
      );
    this.#unlogged.failed = 0;
    this.#unlogged.held = 0;
    this.#logged = 0;
    this.#windowStart = this.#now();
  }

  async #note(key: string, ending: Ending): Promise<void> {
    if (this.#now() - this.#windowStart >= this.#windowMs) this.flush();
    if (this.#logged >= this.#perWindow) {
      this.#unlogged[ending]++;
      this.#cancel ??= this.#schedule(
        () => this.flush(),
        Math.max(0, this.#windowStart + this.#windowMs - this.#now()),
      );
      return;
    }
    this.#logged++;
    // The row as stored: the reason in full, whatever path settled it.
    const row = await this.outbox.get(key).catch(() => undefined);
    this.logger[this.#level](
      {
        key,
        companyId: row?.companyId,
        code: row?.errorCode ?? undefined,
        reason: row?.lastError ?? undefined,
      },
      ending === "failed" ? "push row failed" : "push row held",
    );
  }
}
