/**
 * Alerts as JSON POSTs to a webhook, sent one after another in the background: a send never
 * blocks a sync, is retried with backoff, and carries no secret (the URL itself is one: only its
 * origin is logged). A user and password in the URL are sent as a Basic Authorization header,
 * never as part of the URL. Delivery is at least once per alert while the process lives.
 */
import { request } from "undici";
import { backoffMs } from "../api/rate-limiter.js";
import type { Logger } from "../log.js";
import { Secret } from "../secret.js";

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

/** Where a webhook URL sends: the URL without its user and password, and the header that carries them. */
export interface WebhookTarget {
  url: Secret;
  /** scheme://host:port: what logs show (the path may hold a token too). */
  origin: string;
  authorization: Secret | null;
}

/** Splits the credentials off a webhook URL (percent-escapes in them decoded, as a browser does). */
export function webhookTarget(url: Secret): WebhookTarget {
  const u = new URL(url.reveal());
  let authorization: Secret | null = null;
  if (u.username !== "" || u.password !== "") {
    const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    authorization = new Secret(`Basic ${Buffer.from(pair, "utf8").toString("base64")}`);
    u.username = "";
    u.password = "";
  }
  return { url: new Secret(u.toString()), origin: u.origin, authorization };
}

export class WebhookSender {
  readonly #queue: AlertPayload[] = [];
  #sending: Promise<void> | null = null;
  readonly #target: WebhookTarget;

  constructor(private readonly opts: WebhookOptions) {
    this.#target = webhookTarget(opts.url);
  }

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
    const log = this.opts.logger.child({
      event: payload.event,
      companyId: payload.company_id,
      to: this.#target.origin,
    });
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
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "tas-sync",
      };
      if (this.#target.authorization) headers.authorization = this.#target.authorization.reveal();
      const res = await request(this.#target.url.reveal(), {
        method: "POST",
        headers,
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
