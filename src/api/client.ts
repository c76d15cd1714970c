/**
 * The three operations of the service, for one company. Auth headers, the
 * current-company-id header and the companyId query are set exactly as the seed says.
 */
import {
  JsonArrayFormatError,
  JsonArrayScanner,
  JsonElementTooLargeError,
  MAX_RECORD_BYTES,
} from "../json/array.js";
import type { Logger } from "../log.js";
import { formatBytes } from "../text/bytes.js";
import { scenarioSchema, type WireScenario } from "../wire/schemas.js";
import type { TokenProvider } from "./auth.js";
import { parseBody } from "./body.js";
import {
  type ApiError,
  isUnreachable,
  NotFoundError,
  ResponseFormatError,
  ResponseTooLargeError,
  transportError,
  UnauthorizedError,
  withDetail,
} from "./errors.js";
import type { HttpTransport, Response } from "./http.js";
import { backoffMs, defaultSleep } from "./rate-limiter.js";

export interface ClientDeps {
  http: HttpTransport;
  baseUrl: string;
  auth: TokenProvider;
  companyId: number;
  maxAttempts: number;
  logger: Logger;
  sleep?: (ms: number) => Promise<void>;
  /** Largest plan-list body read before giving up (config http.maxResponseBytes); default 1 GiB. */
  maxResponseBytes?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 ** 3;

export interface PlanStreamHandlers {
  /** One plan's JSON, its UTF-8 bytes exactly as received. */
  onRecord(bytes: Buffer): void;
  /** The body failed midway and the list is fetched again: forget what was received. */
  onRestart(): void;
  /**
   * The list failed for good after part of it arrived (the error is thrown next): `tail` is the
   * element it broke off in, as far as it came, or null.
   */
  onBrokenOff?(tail: Buffer | null): void;
}

export interface CreatedScenario {
  text: string;
  scenario: WireScenario;
}

/** Re-authentications after a 401 before the refusal stands. */
const MAX_RENEWALS = 2;

export class TasClient {
  readonly #root: string;
  constructor(private readonly deps: ClientDeps) {
    // The REST root has a path (e.g. /Testinium.RestApi) that must be kept.
    this.#root = deps.baseUrl.replace(/\/+$/, "");
  }

  get companyId(): number {
    return this.deps.companyId;
  }

  /**
   * GET /api/plans, streamed element by element. Returns the number of records. A body past
   * `maxResponseBytes`, or one plan past MAX_RECORD_BYTES, stops the read at once (not retried).
   * `signal` aborts the request at once, even while the service has not answered yet.
   */
  async streamPlans(handlers: PlanStreamHandlers, signal?: AbortSignal): Promise<number> {
    const { logger, maxAttempts } = this.deps;
    for (let attempt = 1; ; attempt++) {
      const scanner = new JsonArrayScanner();
      const progress = { received: false };
      try {
        const res = await this.#authorized((authorize) =>
          this.deps.http.request({
            operation: "listPlans",
            method: "GET",
            url: this.#url("/api/plans"),
            headers: { accept: "application/json" },
            authorize,
            idempotent: true,
            ...(signal ? { signal } : {}),
          }),
        );
        await this.#readPlanList(res, scanner, handlers, progress);
        return scanner.count;
      } catch (err) {
        const e = err instanceof NotFoundError ? this.#noSuchList(err) : (err as ApiError);
        if (!progress.received || !e.retryable || attempt >= maxAttempts || signal?.aborted) {
          if (progress.received) handlers.onBrokenOff?.(scanner.pending());
          throw e;
        }
        // The body broke off midway: start the list again from scratch.
        handlers.onRestart();
        const wait = backoffMs(attempt);
        logger.warn(
          { attempt, waitMs: wait, err: e.message, after: scanner.count },
          "plan list broke off; fetching again",
        );
        await (this.deps.sleep ?? defaultSleep)(wait);
      }
    }
  }

  /**
   * The plan list has no documented 404: the URL is wrong, most often a baseUrl without the
   * REST root. Says the URL asked and where the path belongs.
   */
  #noSuchList(err: NotFoundError): NotFoundError {
    const url = this.#url("/api/plans");
    return withDetail(
      err,
      `asked GET ${url.href}: baseUrl must include the service's REST root (e.g. ${url.origin}/Testinium.RestApi)`,
    );
  }

  /** Feeds the list body to the scanner; every failure leaves as an ApiError, or as the consumer's own. */
  async #readPlanList(
    res: Response,
    scanner: JsonArrayScanner,
    handlers: PlanStreamHandlers,
    progress: { received: boolean },
  ): Promise<void> {
    const maxBytes = this.deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const tooLarge = (code: string, detail: string) =>
      new ResponseTooLargeError({ operation: "listPlans", status: res.statusCode, code, detail });
    // A failure of our own consumer (a full disk, say) is not the network's: it must
    // leave here as it is, not as a retryable connection error.
    let local: { err: unknown } | null = null;
    const onRecord = (bytes: Buffer) => {
      try {
        handlers.onRecord(bytes);
      } catch (err) {
        local = { err };
        throw err;
      }
    };
    let bytes = 0;
    try {
      // Leaving this loop early (any throw) destroys the body stream: nothing more is read.
      for await (const chunk of res.body) {
        progress.received = true;
        bytes += (chunk as Buffer).length;
        if (bytes > maxBytes) {
          throw tooLarge(
            "RESPONSE_TOO_LARGE",
            `the plan list is larger than ${formatBytes(maxBytes)} (http.maxResponseBytes)`,
          );
        }
        scanner.push(chunk as Buffer, onRecord);
      }
      scanner.end();
    } catch (err) {
      if (local) throw (local as { err: unknown }).err;
      if (err instanceof JsonElementTooLargeError) {
        throw tooLarge("RECORD_TOO_LARGE", `a plan record is larger than ${formatBytes(err.limit)}`);
      }
      if (err instanceof JsonArrayFormatError) {
        throw new ResponseFormatError({
          operation: "listPlans",
          status: res.statusCode,
          code: "NOT_A_JSON_ARRAY",
          detail: err.message,
        });
      }
      throw transportError("listPlans", err, this.deps.http.target(this.#url("/api/plans")));
    }
  }

  /** GET /api/scheduled-reports/scheduled/{id}?companyId=, as raw JSON text. */
  async getScheduledReport(id: number): Promise<string> {
    const url = this.#url(`/api/scheduled-reports/scheduled/${id}`);
    url.searchParams.set("companyId", String(this.deps.companyId));
    const res = await this.#authorized((authorize) =>
      this.deps.http.requestText({
        operation: "getScheduledReport",
        method: "GET",
        url,
        headers: this.#companyHeaders(),
        authorize,
        idempotent: true,
        maxBytes: MAX_RECORD_BYTES,
      }),
    );
    return res.text;
  }

  /** Whether a refused token can be renewed (a password grant), or not (a static token). */
  get renewableAuth(): boolean {
    return this.deps.auth.renewable;
  }

  /**
   * POST /api/projects/{projectId}/scenarios. One attempt as far as the server can tell (a
   * 401 is resent after re-authenticating: it was not processed); the caller owns retries,
   * because only it knows whether an earlier attempt's outcome is unknown, and 429s, because
   * only it knows whose rows should wait (a RateLimitedError leaves at once).
   */
  async createScenario(
    projectId: number,
    /** The request body (seed 4.1) as JSON text, as the outbox stores it. */
    payload: string,
    beforeSend?: () => Promise<void>,
  ): Promise<CreatedScenario> {
    const res = await this.#authorized((authorize) =>
      this.deps.http.requestText({
        operation: "createScenario",
        method: "POST",
        url: this.#url(`/api/projects/${encodeURIComponent(String(projectId))}/scenarios`),
        headers: { ...this.#companyHeaders(), "content-type": "application/json" },
        authorize,
        body: payload,
        idempotent: false,
        maxBytes: MAX_RECORD_BYTES,
        onRateLimited: "throw",
        ...(beforeSend ? { beforeSend } : {}),
      }),
    );
    return {
      text: res.text,
      scenario: parseBody(res.text, scenarioSchema, "createScenario", res.statusCode),
    };
  }

  #url(path: string): URL {
    return new URL(this.#root + path);
  }

  #companyHeaders(): Record<string, string> {
    return {
      "current-company-id": String(this.deps.companyId),
      accept: "application/json",
    };
  }

  /**
   * Runs `send`, which attaches the bearer token right before each send (after every wait:
   * rate slot, 429, backoff), so a token never expires in transit. On a 401 the token is
   * renewed and the request sent again, twice at most: a fresh token refused twice more means
   * the credentials are refused (the caller pauses, or fails the sync).
   */
  async #authorized<T>(send: (authorize: () => Promise<Record<string, string>>) => Promise<T>): Promise<T> {
    const { auth } = this.deps;
    let used: string | null = null;
    const authorize = async () => {
      used = await auth.token();
      return { authorization: `Bearer ${used}` };
    };
    for (let renewals = 0; ; renewals++) {
      try {
        return await send(authorize);
      } catch (err) {
        if (err instanceof UnauthorizedError && (!auth.renewable || renewals >= MAX_RENEWALS))
          throw withDetail(err, auth.refused);
        // Nothing answers at baseUrl (a token's failure names auth.tokenUrl itself).
        if (isUnreachable(err) && err.operation !== "token") throw withDetail(err, "check baseUrl");
        if (!(err instanceof UnauthorizedError)) throw err;
        if (used !== null) auth.invalidate(used);
        this.deps.logger.info(
          { companyId: this.deps.companyId },
          "token refused (401); authenticating again",
        );
      }
    }
  }
}
