/**
 * Alerts as JSON POSTs to a webhook, sent one after another in the background: a send never
 * blocks a sync, is retried with backoff, and carries no secret (the URL itself is one: it is
 * never logged). Delivery is at least once per alert while the process lives.
 */
import { request } from "undici";
import { backoffMs } from "../api/rate-limiter.js";
import type { Logger } from "../log.js";
import type { Secret } from "../secret.js";

export interface AlertPayload {
  event: string;
  company_id: number;
  [key: string]: unknown;
}

export interface WebhookOptions {
  url: Secret;
  timeoutMs: number;
  logger: Logger;
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class WebhookSender {
  readonly #queue: AlertPayload[] = [];
  #sending: Promise<void> | null = null;

  constructor(private readonly opts: WebhookOptions) {}

  /** Queue an alert; returns at once. */
  send(payload: AlertPayload): void {
    this.#queue.push(payload);
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = null;
    });
  }

  /** Resolves once every queued alert was sent or given up (for shutdown and tests). */
  async flush(): Promise<void> {
    while (this.#sending) await this.#sending;
  }

  async #drain(): Promise<void> {
    for (let next = this.#queue.shift(); next; next = this.#queue.shift()) await this.#deliver(next);
  }

  async #deliver(payload: AlertPayload): Promise<void> {
    const attempts = this.opts.attempts ?? 5;
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const log = this.opts.logger.child({ event: payload.event, companyId: payload.company_id });
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const problem = await this.#post(payload);
      if (problem === null) {
        log.info("alert sent");
        return;
      }
      if (attempt === attempts) {
        log.error({ err: problem, attempts }, "alert not delivered; giving up");
        return;
      }
      log.warn({ err: problem, attempt }, "alert delivery failed; retrying");
      await sleep(backoffMs(attempt, Math.random, 1000, 30_000));
    }
  }

  /** null when delivered, else why not (never the URL). */
  async #post(payload: AlertPayload): Promise<string | null> {
    try {
      const res = await request(this.opts.url.reveal(), {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "tas-sync" },
        body: JSON.stringify(payload),
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      await res.body.dump();
      return res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code ?? (err instanceof Error ? err.name : "error");
    }
  }
}
