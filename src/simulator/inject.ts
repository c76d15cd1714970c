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

  if (state.takeRateLimitBurst()) {
    rateLimited(ctx, faults.retryAfterSeconds);
    return true;
  }
  if (state.dice.roll(faults.rateLimitRate)) {
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

function rateLimited(ctx: RequestContext, retryAfterSeconds: number): void {
  const headers = { "retry-after": String(retryAfterSeconds) };
  sendError(ctx.res, 429, "TOO_MANY_REQUESTS", "Rate limit exceeded", headers);
}

/**
 * Waits `ms` before the answer starts. A client that gives up meanwhile does not end the wait:
 * as on a real server, the request is still processed (a create that timed out may still be
 * stored). Only closing the simulator ends it; false then: nothing more to do.
 */
export async function hold(ctx: RequestContext, ms: number): Promise<boolean> {
  const { state } = ctx;
  state.stats.held++;
  try {
    await sleep(ms, undefined, { signal: state.closing.signal });
    return true;
  } catch {
    return false;
  } finally {
    state.stats.held--;
  }
}
