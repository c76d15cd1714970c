/**
 * Unauthenticated control endpoints under {base}/__admin/, for tests and benchmarks: inspect
 * created scenarios and request counts, change faults at run time, and edit plans and reports
 * in place (raw JSON stored as given, even if odd on purpose) to drive sync scenarios, and make
 * the plans drift (drift.ts).
 */
import type { RequestContext } from "./context.js";
import { parseFaultPatch } from "./faults.js";
import { parseId, parseJson, sendBytes, sendError, sendJson } from "./http.js";
import type { JsonList } from "./json-list.js";

function companyPlans(ctx: RequestContext): JsonList | undefined {
  const companyId = parseId(ctx.params[0]);
  const plans = companyId === undefined ? undefined : ctx.state.plans.get(companyId);
  if (!plans) sendError(ctx.res, 404, "NOT_FOUND", `Company ${ctx.params[0] ?? ""} not found`);
  return plans;
}

/** The body as trimmed JSON text, or undefined after answering 400. */
function jsonBody(ctx: RequestContext): string | undefined {
  const text = ctx.body.toString("utf8").trim();
  if (!parseJson(text).ok) {
    sendError(ctx.res, 400, "INVALID_REQUEST", "Body must be valid JSON (any JSON value is stored as-is)");
    return undefined;
  }
  return text;
}

function idParam(ctx: RequestContext, index: number): number | undefined {
  const id = parseId(ctx.params[index]);
  if (id === undefined) sendError(ctx.res, 400, "INVALID_REQUEST", "Id must be a number");
  return id;
}

export function adminScenarios(ctx: RequestContext): void {
  const { scenarios } = ctx.state;
  sendJson(ctx.res, 200, { scenarios: scenarios.adminList(), attempts: scenarios.attempts });
}

/** Scenarios created per "<project_id>/<scenario_name>": the service's own count of each. */
export function adminCreates(ctx: RequestContext): void {
  sendJson(ctx.res, 200, { creates: ctx.state.scenarios.createsByName() });
}

export function adminStats(ctx: RequestContext): void {
  sendJson(ctx.res, 200, ctx.state.stats.snapshot());
}

export function adminGetFaults(ctx: RequestContext): void {
  sendJson(ctx.res, 200, ctx.state.faults);
}

export function adminPutFaults(ctx: RequestContext): void {
  const json = parseJson(ctx.body.toString("utf8"));
  const parsed = json.ok ? parseFaultPatch(json.value) : { ok: false as const, error: "Body is not JSON" };
  if (!parsed.ok) {
    sendError(ctx.res, 400, "INVALID_REQUEST", parsed.error);
    return;
  }
  sendJson(ctx.res, 200, ctx.state.setFaults(parsed.patch));
}

export function adminResetFaults(ctx: RequestContext): void {
  sendJson(ctx.res, 200, ctx.state.resetFaults());
}

export function adminCompanies(ctx: RequestContext): void {
  sendJson(ctx.res, 200, ctx.state.companyInfo());
}

export function adminListPlanIds(ctx: RequestContext): void {
  const plans = companyPlans(ctx);
  if (plans) sendJson(ctx.res, 200, { planIds: plans.ids() });
}

export function adminGetPlan(ctx: RequestContext): void {
  const plans = companyPlans(ctx);
  const id = plans && idParam(ctx, 1);
  if (!plans || id === undefined) return;
  const plan = plans.bytes(id);
  if (plan) sendBytes(ctx.res, 200, plan);
  else sendError(ctx.res, 404, "NOT_FOUND", `Plan ${id} not found`);
}

export function adminPutPlan(ctx: RequestContext): void {
  const plans = companyPlans(ctx);
  const id = plans && idParam(ctx, 1);
  const text = id === undefined ? undefined : jsonBody(ctx);
  if (!plans || id === undefined || text === undefined) return;
  const created = plans.bytes(id) === undefined;
  plans.set(id, text);
  sendJson(ctx.res, created ? 201 : 200, { id, created });
}

export function adminDeletePlan(ctx: RequestContext): void {
  const plans = companyPlans(ctx);
  const id = plans && idParam(ctx, 1);
  if (!plans || id === undefined) return;
  if (plans.delete(id)) sendJson(ctx.res, 200, { id, deleted: true });
  else sendError(ctx.res, 404, "NOT_FOUND", `Plan ${id} not found`);
}

export function adminGetReport(ctx: RequestContext): void {
  const id = idParam(ctx, 0);
  if (id === undefined) return;
  const report = ctx.state.reports.bytes(id);
  if (report) sendBytes(ctx.res, 200, report, { "x-company-id": ctx.state.reportOwner.get(id) ?? "" });
  else sendError(ctx.res, 404, "NOT_FOUND", `Report ${id} not found`);
}

/** A new report needs ?companyId=; a replaced one keeps its company unless told otherwise. */
export function adminPutReport(ctx: RequestContext): void {
  const { state } = ctx;
  const id = idParam(ctx, 0);
  if (id === undefined) return;
  const companyId = parseId(ctx.url.searchParams.get("companyId")) ?? state.reportOwner.get(id);
  if (companyId === undefined || !state.company(companyId)) {
    sendError(ctx.res, 400, "INVALID_REQUEST", "A new report needs ?companyId= of a known company");
    return;
  }
  const text = jsonBody(ctx);
  if (text === undefined) return;
  const created = state.reports.bytes(id) === undefined;
  state.putReport(id, companyId, text);
  sendJson(ctx.res, created ? 201 : 200, { id, companyId, created });
}

export function adminDeleteReport(ctx: RequestContext): void {
  const id = idParam(ctx, 0);
  if (id === undefined) return;
  if (ctx.state.deleteReport(id)) sendJson(ctx.res, 200, { id, deleted: true });
  else sendError(ctx.res, 404, "NOT_FOUND", `Report ${id} not found`);
}

export function adminGetDrift(ctx: RequestContext): void {
  sendJson(ctx.res, 200, ctx.state.drift);
}

/** {"armed": true}: the next plan list served to each company that has not drifted yet makes it drift. */
export function adminPutDrift(ctx: RequestContext): void {
  const json = parseJson(ctx.body.toString("utf8"));
  const body = json.ok ? json.value : undefined;
  const armed = typeof body === "object" && body !== null ? (body as { armed?: unknown }).armed : undefined;
  if (typeof armed !== "boolean" || Object.keys(body as object).length !== 1) {
    sendError(ctx.res, 400, "INVALID_REQUEST", 'Body must be {"armed": true} or {"armed": false}');
    return;
  }
  ctx.state.setDriftArmed(armed);
  sendJson(ctx.res, 200, ctx.state.drift);
}

/** Drifts the company's plans now; the answer says how many plans each change touched. */
export function adminDriftCompany(ctx: RequestContext): void {
  const companyId = parseId(ctx.params[0]);
  const summary = companyId === undefined ? undefined : ctx.state.driftNow(companyId);
  if (companyId === undefined || !summary) {
    sendError(ctx.res, 404, "NOT_FOUND", `Company ${ctx.params[0] ?? ""} not found`);
    return;
  }
  sendJson(ctx.res, 200, { companyId, ...summary });
}
