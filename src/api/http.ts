/**
 * The one HTTP wrapper: keep-alive pool (undici Agent), per-request timeouts, a per-host
 * request-rate cap, retries of 5xx / timeouts / resets with backoff for idempotent calls,
 * and waits for 429 Retry-After. A service that cannot be reached (refused, unknown host, TLS)
 * fails at once. Every failure leaves here as a typed ApiError.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";
import type { Logger } from "../log.js";
import { noTelemetry, type Telemetry } from "../telemetry.js";
import { formatBytes } from "../text/bytes.js";
import {
  type ApiError,
  ConnectionError,
  errorFromResponse,
  isUnreachable,
  type Operation,
  parseRetryAfter,
  RateLimitedError,
  ResponseTooLargeError,
  type Target,
  transportError,
} from "./errors.js";
import { type ProxySettings, proxyFor, proxySettings } from "./proxy.js";
import { backoffMs, defaultSleep, RateLimiter } from "./rate-limiter.js";

export interface HttpOptions {
  timeoutMs: number;
  maxAttempts: number;
  maxRequestsPerSecond: number;
  connections: number;
  logger: Logger;
  telemetry?: Telemetry;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export interface RequestSpec {
  operation: Operation;
  method: "GET" | "POST";
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Safe to send again after an unknown outcome (GET, token). POSTs are retried by their caller. */
  idempotent: boolean;
  /** Awaited before every send, resends after a 429 included (e.g. a shared rate-limit slot). */
  beforeSend?: () => Promise<void>;
  /**
   * Headers asked for right before each send, after every wait (rate slot, 429, backoff): a
   * bearer token taken before a long wait could expire before the request leaves.
   */
  authorize?: () => Promise<Record<string, string>>;
  /** requestText only: a 2xx body past this many bytes is refused (ResponseTooLargeError), not buffered. */
  maxBytes?: number;
  /** request only: aborts the request (its body too) and every retry; the abort is never retried. */
  signal?: AbortSignal;
  /**
   * A 429 is waited out here (default), or thrown at once for the caller to wait without
   * holding anything meanwhile (a push job waits delayed in the queue: push/gate.ts).
   */
  onRateLimited?: "wait" | "throw";
}

export type Response = Dispatcher.ResponseData;

/** A 2xx response read whole (small bodies: a created scenario, a report, a token). */
export interface TextResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * How many 429s one call will sit out before giving up; they do not use up attempts. A push job
 * (push/create.ts) sits out as many before a 429 uses up one of its attempts.
 */
export const MAX_RATE_LIMIT_WAITS = 30;
const MAX_ERROR_BODY = 64 * 1024;

export class HttpTransport {
  readonly #agent: Agent | EnvHttpProxyAgent;
  readonly #proxy: ProxySettings | null;
  readonly #limiters = new Map<string, RateLimiter>();
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #telemetry: Telemetry;
  readonly #random: () => number;
  readonly #now: () => number;

  constructor(private readonly opts: HttpOptions) {
    const agentOptions = {
      connections: opts.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs },
    };
    // The proxy the error messages name is the one the agent sends through: undici's own
    // reading of the environment prefers http_proxy to HTTP_PROXY, ours the other way round.
    this.#proxy = proxySettings();
    this.#agent = this.#proxy
      ? new EnvHttpProxyAgent({ ...agentOptions, ...this.#proxy })
      : new Agent(agentOptions);
    this.#sleep = opts.sleep ?? defaultSleep;
    this.#telemetry = opts.telemetry ?? noTelemetry;
    this.#random = opts.random ?? Math.random;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Sends with retries and returns a 2xx response whose body the caller must consume (a
   * stream: the plan list can be large). Non-idempotent requests get no retry here except
   * for 429 (which was not processed).
   */
  request(spec: RequestSpec): Promise<Response> {
    const send = (headers: Record<string, string>) =>
      request(spec.url, {
        dispatcher: this.#agent,
        method: spec.method,
        headers,
        body: spec.body,
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
    return this.#retrying(spec, () => this.#once(spec, send, (res) => readLimited(res.body).catch(() => "")));
  }

  /**
   * As `request`, for a body read whole. It skips the response stream (and its async
   * context), which costs more CPU than the rest of a small request.
   */
  requestText(spec: RequestSpec): Promise<TextResponse> {
    const send = (headers: Record<string, string>) => this.#dispatchText(spec, headers);
    return this.#retrying(spec, () => this.#once(spec, send, async (res) => res.text));
  }

  async #retrying<T>(spec: RequestSpec, once: () => Promise<T>): Promise<T> {
    let attempt = 0;
    let rateLimitWaits = 0;
    for (;;) {
      attempt++;
      try {
        return await once();
      } catch (err) {
        const e = err as ApiError;
        if (spec.signal?.aborted) throw e;
        // Another operation's failure (the token, asked for before each send) used its own
        // retries already: one budget per operation, never one nested inside another.
        if (e.operation !== spec.operation) throw e;
        // Nothing listens there, no such host, or TLS refused: no retry will change it.
        if (isUnreachable(e)) throw e;
        if (
          e instanceof RateLimitedError &&
          spec.onRateLimited !== "throw" &&
          rateLimitWaits < MAX_RATE_LIMIT_WAITS
        ) {
          rateLimitWaits++;
          attempt--;
          const wait = e.retryAfterMs ?? backoffMs(rateLimitWaits, this.#random);
          this.#telemetry.rateLimitWait(spec.operation, wait / 1000);
          this.opts.logger.warn(
            { operation: spec.operation, waitMs: wait },
            "rate limited by the service; waiting",
          );
          await this.#sleep(wait);
          continue;
        }
        const canRetry =
          e.retryable && (spec.idempotent || (e instanceof ConnectionError && !e.outcomeUnknown));
        if (canRetry && attempt < this.opts.maxAttempts) {
          const wait = backoffMs(attempt, this.#random);
          this.#telemetry.httpRetry(spec.operation);
          // One line per call at the default level; its further attempts at debug. Whoever
          // made the call reports how it ended.
          const level = attempt === 1 ? "warn" : "debug";
          this.opts.logger[level](
            { operation: spec.operation, attempt, of: this.opts.maxAttempts, waitMs: wait, err: e.message },
            "request failed; retrying",
          );
          await this.#sleep(wait);
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * One attempt: rate-limited send; a non-2xx answer becomes a typed error (a 429 with its
   * Retry-After) worded from the body `errorText` reads.
   */
  async #once<R extends { statusCode: number; headers: IncomingHttpHeaders }>(
    spec: RequestSpec,
    send: (headers: Record<string, string>) => Promise<R>,
    errorText: (res: R) => Promise<string>,
  ): Promise<R> {
    const headers = await this.#beforeSend(spec);
    let res: R;
    try {
      res = await send(headers);
    } catch (err) {
      this.#telemetry.httpRequest(spec.operation, "error");
      throw transportError(spec.operation, err, this.target(spec.url));
    }
    const status = res.statusCode;
    this.#telemetry.httpRequest(spec.operation, status);
    if (isOk(status)) return res;
    const text = await errorText(res);
    const retryAfter = status === 429 ? parseRetryAfter(res.headers["retry-after"], this.#now()) : null;
    throw errorFromResponse(spec.operation, status, text, retryAfter);
  }

  /** Waits for the caller's slot and the per-host cap; then the headers, fresh, to send. */
  async #beforeSend(spec: RequestSpec): Promise<Record<string, string>> {
    await spec.beforeSend?.();
    await this.#limiter(spec.url.host).acquire();
    return spec.authorize ? { ...spec.headers, ...(await spec.authorize()) } : spec.headers;
  }

  /** The response read whole by a dispatch handler; of an error, the first 64 KiB only. */
  #dispatchText(spec: RequestSpec, sendHeaders: Record<string, string>): Promise<TextResponse> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let statusCode = 0;
      const maxBytes = spec.maxBytes ?? Number.POSITIVE_INFINITY;
      let headers: IncomingHttpHeaders = {};
      const answer = () => resolve({ statusCode, headers, text: Buffer.concat(chunks).toString("utf8") });
      const options: Dispatcher.DispatchOptions = {
        origin: spec.url.origin,
        path: spec.url.pathname + spec.url.search,
        method: spec.method,
        headers: sendHeaders,
        body: spec.body ?? null,
      };
      this.#agent.dispatch(options, {
        // Its presence marks this as a handler of undici's current API (not the legacy one).
        onRequestStart() {},
        onResponseStart(_controller, status, responseHeaders) {
          statusCode = status;
          headers = responseHeaders;
        },
        onResponseData(controller, chunk) {
          size += chunk.length;
          if (isOk(statusCode) && size > maxBytes) {
            chunks.length = 0;
            const detail = `the response is larger than ${formatBytes(maxBytes)}`;
            // Aborting closes the connection; onResponseError then rejects with this error.
            const init = {
              operation: spec.operation,
              status: statusCode,
              code: "RESPONSE_TOO_LARGE",
              detail,
            };
            controller.abort(new ResponseTooLargeError(init));
            return;
          }
          if (isOk(statusCode) || size - chunk.length < MAX_ERROR_BODY) chunks.push(chunk);
        },
        onResponseEnd: answer,
        onResponseError(_controller, err) {
          // An error status already says what happened (a 429 to wait out, a 400 that proves
          // nothing was created): a body that breaks off after it changes nothing, as with
          // the streamed path. Only a 2xx whose body is lost leaves the outcome unknown.
          if (statusCode !== 0 && !isOk(statusCode)) answer();
          else reject(err);
        },
      });
    });
  }

  /** Where a request to `url` goes (for error messages): its host and port, and the proxy. */
  target(url: URL): Target {
    return { url, proxy: proxyFor(url, this.#proxy) };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  #limiter(host: string): RateLimiter {
    let limiter = this.#limiters.get(host);
    if (!limiter) {
      limiter = new RateLimiter(this.opts.maxRequestsPerSecond, this.#now, this.#sleep);
      this.#limiters.set(host, limiter);
    }
    return limiter;
  }
}

const isOk = (status: number) => status >= 200 && status < 300;

async function readLimited(body: Response["body"]): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < MAX_ERROR_BODY) chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks).toString("utf8");
}
