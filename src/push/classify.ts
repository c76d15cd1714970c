/** What an attempt's failure means for the row (pure; the table of seed section 7.1). */
import {
  ApiError,
  InvalidScenarioNameError,
  ProjectNotFoundError,
  RateLimitedError,
  ResponseFormatError,
  UnauthorizedError,
} from "../api/errors.js";

export type Outcome =
  /** The name is taken by our own earlier attempt: the scenario exists, none was made twice. */
  | { kind: "exists"; message: string }
  /** Permanent: do not retry. */
  | { kind: "failed"; code: string; message: string }
  /** Transient: retry later. `sure` = the server certainly did not create it. */
  | { kind: "retry"; code: string; message: string; sure: boolean }
  /** 429: the service did not look at it; wait as long as it says (null: it did not say). */
  | { kind: "rate-limited"; code: string; message: string; retryAfterMs: number | null }
  /**
   * The credentials were refused: the token (after re-authenticating, for a password grant),
   * or the username and password by the token endpoint (`tokenEndpoint`).
   */
  | { kind: "unauthorized"; message: string; tokenEndpoint: boolean };

/**
 * @param uncertain an earlier attempt of this row may have reached the server
 */
export function classifyFailure(err: unknown, uncertain: boolean): Outcome {
  if (!(err instanceof ApiError)) {
    const message = err instanceof Error ? err.message : String(err);
    return { kind: "retry", code: "UNEXPECTED", message, sure: false };
  }
  // Getting a token failed: the create was never sent, and no row is at fault.
  if (err.operation === "token") {
    return err.retryable
      ? { kind: "retry", code: err.code, message: err.message, sure: true }
      : { kind: "unauthorized", message: err.message, tokenEndpoint: true };
  }
  if (err instanceof InvalidScenarioNameError) {
    return uncertain
      ? { kind: "exists", message: "an earlier attempt's answer was lost; the service already has this name" }
      : {
          kind: "failed",
          code: "INVALID_SCENARIO_NAME",
          message: `${err.message} (the name is invalid or already used in the project)`,
        };
  }
  if (err instanceof ProjectNotFoundError)
    return { kind: "failed", code: "PROJECT_NOT_FOUND", message: err.message };
  if (err instanceof UnauthorizedError)
    return { kind: "unauthorized", message: err.message, tokenEndpoint: false };
  if (err instanceof RateLimitedError)
    return { kind: "rate-limited", code: err.code, message: err.message, retryAfterMs: err.retryAfterMs };
  // A 2xx we cannot read: the scenario was probably made; a retry's name clash will tell.
  if (err instanceof ResponseFormatError)
    return { kind: "retry", code: err.code, message: err.message, sure: false };
  if (err.retryable)
    return { kind: "retry", code: err.code, message: err.message, sure: !err.outcomeUnknown };
  return { kind: "failed", code: err.code, message: err.message };
}
