/**
 * Every failure of a call to the service becomes one of these classes, chosen in one
 * place (`errorFromResponse`) from the HTTP status and the documented symbolic name
 * (seed section 7), whatever the body is: JSON, empty, HTML from a proxy, or garbage.
 * Messages carry the operation, status and the server's words, never a credential.
 */
export type Operation = "token" | "listPlans" | "getScheduledReport" | "createScenario";

export interface ApiErrorInit {
  operation: Operation;
  status?: number | undefined;
  code: string;
  /** The symbolic name the server's body gave, if it gave one. */
  symbolic?: string | undefined;
  detail?: string | undefined;
  cause?: unknown;
}

export class ApiError extends Error {
  override name = "ApiError";
  readonly operation: Operation;
  readonly status: number | undefined;
  /** The symbolic name from the body, or one we chose (TIMEOUT, CONNECTION_RESET, ...). */
  readonly code: string;
  readonly detail: string | undefined;
  /** The symbolic name from the server's body (undefined when the body had none). */
  readonly symbolic: string | undefined;
  /** Worth another attempt later (5xx, timeouts, resets, 429). */
  readonly retryable: boolean = false;
  /** The request may have reached the server and taken effect (matters for POST). */
  readonly outcomeUnknown: boolean = false;

  constructor(init: ApiErrorInit) {
    const where = init.status === undefined ? init.operation : `${init.operation}: HTTP ${init.status}`;
    super(`${where} ${init.code}${init.detail ? `: ${init.detail}` : ""}`, { cause: init.cause });
    this.operation = init.operation;
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.symbolic = init.symbolic;
  }

  /** The same kind of error from `init`, with what this one's constructor got besides. */
  remake(init: ApiErrorInit): ApiError {
    return new (this.constructor as new (init: ApiErrorInit) => ApiError)(init);
  }
}

/** The same error (same class, code and status) with more said after its detail. */
export function withDetail<E extends ApiError>(err: E, more: string): E {
  return err.remake({
    operation: err.operation,
    status: err.status,
    code: err.code,
    symbolic: err.symbolic,
    detail: err.detail ? `${err.detail}; ${more}` : more,
    cause: err.cause,
  }) as E;
}

export class UnauthorizedError extends ApiError {
  override name = "UnauthorizedError";
}
/** The token endpoint refused the client or the user's credentials. */
export class InvalidCredentialsError extends ApiError {
  override name = "InvalidCredentialsError";
}
export class AccessDeniedError extends ApiError {
  override name = "AccessDeniedError";
}
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
export class ProjectNotFoundError extends NotFoundError {
  override name = "ProjectNotFoundError";
}
export class InvalidRequestError extends ApiError {
  override name = "InvalidRequestError";
}
export class InvalidScenarioNameError extends InvalidRequestError {
  override name = "InvalidScenarioNameError";
}
export class ValidationFailedError extends ApiError {
  override name = "ValidationFailedError";
}
export class RateLimitedError extends ApiError {
  override name = "RateLimitedError";
  override readonly retryable = true;
  constructor(
    init: ApiErrorInit,
    /** How long the server asked us to wait, from Retry-After; null when absent. */
    readonly retryAfterMs: number | null,
  ) {
    super(init);
  }
  override remake(init: ApiErrorInit): ApiError {
    return new (this.constructor as typeof RateLimitedError)(init, this.retryAfterMs);
  }
}
export class ServerError extends ApiError {
  override name = "ServerError";
  override readonly retryable = true;
  override readonly outcomeUnknown = true;
}
export class TimeoutError extends ApiError {
  override name = "TimeoutError";
  override readonly retryable = true;
  override readonly outcomeUnknown = true;
}
/**
 * The connection failed. `outcomeUnknown` is false only when it was never established.
 * `unreachable`: the address answers that nothing is there (connection refused, unknown host,
 * no route) or the TLS handshake failed: a config to fix, not a hiccup. The call fails at once
 * (no retries inside it); it stays `retryable` for whoever retries much later (a push job).
 */
export class ConnectionError extends ApiError {
  override name = "ConnectionError";
  override readonly retryable = true;
  override readonly outcomeUnknown: boolean;
  readonly unreachable: boolean;
  constructor(init: ApiErrorInit, sent: boolean, unreachable = false) {
    super(init);
    this.outcomeUnknown = sent;
    this.unreachable = unreachable;
  }
  override remake(init: ApiErrorInit): ApiError {
    return new (this.constructor as typeof ConnectionError)(init, this.outcomeUnknown, this.unreachable);
  }
}

/** A connection that could not be made for a reason retrying at once will not change. */
export function isUnreachable(err: unknown): err is ConnectionError {
  return err instanceof ConnectionError && err.unreachable;
}
/** A 2xx whose body is not what the contract says (not JSON, wrong shape). */
export class ResponseFormatError extends ApiError {
  override name = "ResponseFormatError";
}
/**
 * A 2xx body, or one record in it, larger than we accept (RESPONSE_TOO_LARGE, RECORD_TOO_LARGE).
 * Not retryable: the same request gets the same body, and buffering it has no bound.
 */
export class ResponseTooLargeError extends ResponseFormatError {
  override name = "ResponseTooLargeError";
}

export interface ErrorBody {
  error: string | undefined;
  message: string | undefined;
}

/** Read `{"error","message"}` (or `error_description`) from any body; never throws. */
export function parseErrorBody(text: string): ErrorBody {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const obj = JSON.parse(trimmed) as Record<string, unknown>;
      const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
      return {
        error: str(obj.error) ?? str(obj.code),
        message: str(obj.message) ?? str(obj.error_description),
      };
    } catch {
      // fall through: not JSON after all
    }
  }
  return { error: undefined, message: snippet(trimmed) };
}

/** A short, single-line excerpt of a non-JSON body (HTML tags stripped). */
function snippet(text: string): string | undefined {
  const flat = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (!flat) return undefined;
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/** Parse Retry-After: delta seconds or an HTTP date. Returns ms, or null. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  // Every HTTP-date form has hh:mm:ss; without this, Date.parse reads "-1" or "abc 12" as 2001.
  if (!/\d{2}:\d{2}:\d{2}/.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

const DEFAULT_CODES: Record<number, string> = {
  400: "INVALID_REQUEST",
  401: "UNAUTHORIZED",
  403: "ACCESS_DENIED",
  404: "NOT_FOUND",
  422: "VALIDATION_FAILED",
  429: "TOO_MANY_REQUESTS",
};

/** The one place that turns an HTTP failure into a typed error. */
export function errorFromResponse(
  operation: Operation,
  status: number,
  bodyText: string,
  retryAfterMs: number | null = null,
): ApiError {
  const body = parseErrorBody(bodyText);
  const symbolic = body.error?.toUpperCase().replace(/\s+/g, "_");
  const code =
    symbolic ?? DEFAULT_CODES[status] ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : `HTTP_${status}`);
  const init: ApiErrorInit = { operation, status, code, symbolic, detail: body.message };
  if (status === 401 && operation === "token") return new InvalidCredentialsError(init);
  if (status === 401) return new UnauthorizedError(init);
  if (status === 403) return new AccessDeniedError(init);
  if (status === 404)
    return symbolic === "PROJECT_NOT_FOUND" ? new ProjectNotFoundError(init) : new NotFoundError(init);
  if (status === 400) {
    if (operation === "token") return new InvalidCredentialsError(init);
    return symbolic === "INVALID_SCENARIO_NAME"
      ? new InvalidScenarioNameError(init)
      : new InvalidRequestError(init);
  }
  if (status === 422) return new ValidationFailedError(init);
  if (status === 429) return new RateLimitedError(init, retryAfterMs);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/**
 * Nothing listens, no such host (or no DNS answer at all), no route: retrying within seconds
 * finds the same. The next scheduled sync, or a push job's next attempt, tries again.
 */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const NOT_SENT = new Set([...UNREACHABLE, "UND_ERR_CONNECT_TIMEOUT"]);
/**
 * A failed TLS handshake (certificate refused, or TLS spoken to a port that does not): nothing
 * was sent, and the same handshake fails again.
 */
const TLS_FAILURE = /^ERR_TLS_|^ERR_SSL_|^EPROTO$|CERT|SIGNATURE|ISSUER/;
const TIMEOUTS = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);

/** Where a request went: the service's URL, and the proxy it went through, if any. */
export interface Target {
  url: URL;
  proxy?: string | undefined;
}

/** The port of a URL, spelled out even when it is the scheme's default (443 for https, else 80). */
export function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/**
 * Map an undici / socket error (no HTTP answer, or one cut off) to a typed error. With the
 * target, the message says where: `cannot connect to tas.example.com:443 through proxy
 * http://proxy:3128/ (ECONNREFUSED)`.
 */
export function transportError(operation: Operation, err: unknown, target?: Target): ApiError {
  if (err instanceof Error && "operation" in err) return err as ApiError;
  const code = errorCode(err) || (err as Error)?.message || "unknown error";
  const where = target
    ? `${target.url.hostname}:${portOf(target.url)}${target.proxy ? ` through proxy ${target.proxy}` : ""}`
    : "";
  if (TIMEOUTS.has(code)) {
    const detail = where ? `no answer from ${where} in time (${code})` : code;
    return new TimeoutError({ operation, code: "TIMEOUT", detail, cause: err });
  }
  if (TLS_FAILURE.test(code)) {
    const detail = where ? `TLS with ${where} failed (${code})` : code;
    return new ConnectionError({ operation, code: "TLS_FAILED", detail, cause: err }, false, true);
  }
  const sent = !NOT_SENT.has(code);
  const label = sent ? "CONNECTION_RESET" : "CONNECTION_FAILED";
  const detail = !where
    ? code
    : sent
      ? `the connection to ${where} broke off (${code})`
      : `cannot connect to ${where} (${code})`;
  return new ConnectionError({ operation, code: label, detail, cause: err }, sent, UNREACHABLE.has(code));
}

function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return "";
}
