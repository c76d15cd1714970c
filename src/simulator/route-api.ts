/**
 * The two read operations (seed 4.2, 4.3) and the bearer check they share with create.
 * Each operation names its errors differently (seed 7.x); callers pass their own names.
 */
import type { RequestContext } from "./context.js";
import { headerValue, parseId, sendBytes, sendError } from "./http.js";
import { hold } from "./inject.js";
import type { TokenCheck } from "./tokens.js";

const UNAUTHORIZED_MESSAGE = {
  missing: "Full authentication is required to access this resource",
  invalid: "Invalid access token",
  expired: "Access token expired",
} as const;

/** The token's company id, or undefined after answering 401 with `errorName`. */
export function authorize(ctx: RequestContext, errorName: string): number | undefined {
  const check = tokenCompany(ctx);
  if (check.ok) return check.companyId;
  const message = UNAUTHORIZED_MESSAGE[check.reason];
  const challenge =
    check.reason === "missing"
      ? 'Bearer realm="oauth2-resource"'
      : `Bearer realm="oauth2-resource", error="invalid_token", error_description="${message}"`;
  sendError(
    ctx.res,
    401,
    errorName,
    message,
    { "www-authenticate": challenge },
    { error_description: message },
  );
  return undefined;
}

/** Whose token the request carries; a company whose credentials are refused (a fault) has none. */
function tokenCompany(ctx: RequestContext): TokenCheck {
  const check = ctx.state.tokens.check(headerValue(ctx.req, "authorization"), ctx.nowMs);
  if (check.ok && check.companyId === ctx.state.faults.refuseCompanyId)
    return { ok: false, reason: "invalid" };
  return check;
}

/**
 * Reads the current-company-id header and checks it against the token's company: 400 when
 * missing or not a number, 403 when it is another company. Returns false after answering.
 */
export function checkCompanyHeader(ctx: RequestContext, companyId: number): boolean {
  const raw = headerValue(ctx.req, "current-company-id");
  const headerCompany = parseId(raw?.trim());
  if (headerCompany === undefined) {
    sendError(ctx.res, 400, "INVALID_REQUEST", "Header current-company-id is required and must be a number");
    return false;
  }
  if (headerCompany !== companyId) {
    sendError(ctx.res, 403, "ACCESS_DENIED", "Access is denied");
    return false;
  }
  return true;
}

/**
 * GET /api/plans: every plan of the token's company, as one cached JSON array. The list is taken when the request arrives; the plan-list delays hold it
 * before its first byte, as a server that builds its answer and then sends it slowly: a delayed
 * answer is an older snapshot than one asked for later and answered at once.
 */
export async function handlePlans(ctx: RequestContext): Promise<void> {
  const companyId = authorize(ctx, "Unauthorized");
  if (companyId === undefined) return;
  const { state } = ctx;
  const plans = state.plans.get(companyId);
  const body = plans ? plans.body() : Buffer.from("[]");
  const wait = state.faults.planListDelayMs + state.takePlanListDelayOnce();
  if (wait > 0 && !(await hold(ctx, wait))) return;
  sendBytes(ctx.res, 200, body);
  // The list just sent is the one before the drift: the next one shows it.
  state.planListServed(companyId);
}

/** GET /api/scheduled-reports/scheduled/{id}?companyId=X */
export function handleReport(ctx: RequestContext): void {
  const companyId = authorize(ctx, "UNAUTHORIZED");
  if (companyId === undefined) return;
  const { res, state } = ctx;
  const id = parseId(ctx.params[0]);
  const queryCompany = parseId(ctx.url.searchParams.get("companyId"));
  if (id === undefined || queryCompany === undefined) {
    sendError(res, 400, "INVALID_REQUEST", "Report id and the companyId query parameter must be numbers");
    return;
  }
  if (!checkCompanyHeader(ctx, companyId)) return;
  if (queryCompany !== companyId) {
    sendError(res, 403, "ACCESS_DENIED", "Access is denied");
    return;
  }
  const report = state.reports.bytes(id);
  if (!report) {
    sendError(res, 404, "NOT_FOUND", `Scheduled report ${id} not found`);
    return;
  }
  if (state.reportOwner.get(id) !== companyId) {
    sendError(res, 403, "ACCESS_DENIED", "Access is denied");
    return;
  }
  sendBytes(res, 200, report);
}
