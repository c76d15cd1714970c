/**
 * Fault injection for /api/* requests: delays before the first byte (latency, slow requests),
 * then 429 (with bursts) and 500 from the seeded dice. Faults on the answer itself (a create
 * cut after it was stored, a plan list taken at once and sent late) live with their route.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { RequestContext } from "./context.js";
import { sendError } from "./http.js";

/**
 * Answers 429 or 500 (`serverError`: the symbolic name of a 500 for this operation, seed 7.x)
 * when the faults say so; true when the request needs nothing more.
 */
export async function injectFaults(ctx: RequestContext, serverError: string): Promise<boolean> {
  const { state, res } = ctx;
  const faults = state.faults;
  let waitMs = faults.latencyMs;
  // Rolled only when set: a rate of 0 draws nothing, so seeded runs without it stay aligned.
  if (state.dice.roll(faults.slowRate)) waitMs += faults.slowMs;
  if (waitMs > 0 && !(await hold(ctx, waitMs))) return true;

  // A storm on one company's token leaves the others alone (and draws no dice for them).
  const limitable = faults.rateLimitCompanyId === 0 || requestCompany(ctx) === faults.rateLimitCompanyId;
  if (limitable && state.takeRateLimitBurst()) {
    rateLimited(ctx, faults.retryAfterSeconds);
    return true;
  }
  if (limitable && state.dice.roll(faults.rateLimitRate)) {
    state.startRateLimitBurst();
    rateLimited(ctx, faults.retryAfterSeconds);
    return true;
  }
  if (state.dice.roll(faults.errorRate)) {
    sendError(res, 500, serverError, "Simulated server error");
    return true;
  }
  return false;
}

/** The company of the request's bearer token, if it has a valid one. */
function requestCompany(ctx: RequestContext): number | undefined {
  const check = ctx.state.tokens.check(ctx.req.headers.authorization, ctx.nowMs);
  return check.ok ? check.companyId : undefined;
}

function rateLimited(ctx: RequestContext, retryAfterSeconds: number): void {
  const headers = { "retry-after": String(retryAfterSeconds) };
  sendError(ctx.res, 429, "TOO_MANY_REQUESTS", "Rate limit exceeded", headers);
}

/**
 * Waits `ms` before the answer starts. A client that gives up meanwhile does not end the wait:
 * as on a real server, the request is still processed (a create that timed out may still be
 * stored). state.releaseHeld() ends it early (true: go on); closing the simulator ends it too
 * (false then: nothing more to do).
 */
export async function hold(ctx: RequestContext, ms: number): Promise<boolean> {
  const { state } = ctx;
  state.stats.held++;
  try {
    await sleep(ms, undefined, { signal: AbortSignal.any([state.closing.signal, state.delayRelease]) });
    return true;
  } catch {
    return !state.closing.signal.aborted;
  } finally {
    state.stats.held--;
  }
}
