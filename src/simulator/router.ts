/**
 * Request dispatch: route table, body reading, fault injection for /api/*, request counting.
 * Faults apply only to the service's operations, never to the token endpoint or __admin, so
 * tests can always observe and steer the simulator while it misbehaves.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { RequestContext, RouteHandler } from "./context.js";
import { readBody, sendError } from "./http.js";
import { injectFaults } from "./inject.js";
import * as admin from "./route-admin.js";
import { handlePlans, handleReport } from "./route-api.js";
import { handleCreateScenario } from "./route-create.js";
import { handleToken } from "./route-token.js";
import type { SimulatorState } from "./state.js";

interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  pattern: RegExp;
  /** Stats key; also the route's identity. */
  key: string;
  handler: RouteHandler;
  /** Set for /api routes: the symbolic name of a 500 for that operation (seed 7.x). */
  serverError?: string;
}

export const CREATE_ROUTE = "POST /api/projects/:projectId/scenarios";
const PLAN_LIST_ROUTE = "GET /api/plans";
const API_BODY_LIMIT = 1024 * 1024;
const ADMIN_BODY_LIMIT = 64 * 1024 * 1024;

const ADMIN_PLAN = /^\/__admin\/companies\/([^/]+)\/plans\/([^/]+)$/;
const ADMIN_REPORT = /^\/__admin\/reports\/([^/]+)$/;
const ADMIN_FAULTS = /^\/__admin\/faults$/;
const ADMIN_DRIFT = /^\/__admin\/drift$/;

const ROUTES: readonly Route[] = [
  { method: "POST", pattern: /^\/oauth\/token$/, key: "POST /oauth/token", handler: handleToken },
  {
    method: "GET",
    pattern: /^\/api\/plans$/,
    key: PLAN_LIST_ROUTE,
    handler: handlePlans,
    serverError: "Internal Server Error",
  },
  {
    method: "GET",
    pattern: /^\/api\/scheduled-reports\/scheduled\/([^/]+)$/,
    key: "GET /api/scheduled-reports/scheduled/:id",
    handler: handleReport,
    serverError: "INTERNAL_SERVER_ERROR",
  },
  {
    method: "POST",
    pattern: /^\/api\/projects\/([^/]+)\/scenarios$/,
    key: CREATE_ROUTE,
    handler: handleCreateScenario,
    serverError: "INTERNAL_SERVER_ERROR",
  },
  {
    method: "GET",
    pattern: /^\/__admin\/scenarios$/,
    key: "GET /__admin/scenarios",
    handler: admin.adminScenarios,
  },
  { method: "GET", pattern: /^\/__admin\/stats$/, key: "GET /__admin/stats", handler: admin.adminStats },
  {
    method: "GET",
    pattern: /^\/__admin\/creates$/,
    key: "GET /__admin/creates",
    handler: admin.adminCreates,
  },
  { method: "GET", pattern: ADMIN_FAULTS, key: "GET /__admin/faults", handler: admin.adminGetFaults },
  { method: "PUT", pattern: ADMIN_FAULTS, key: "PUT /__admin/faults", handler: admin.adminPutFaults },
  { method: "DELETE", pattern: ADMIN_FAULTS, key: "DELETE /__admin/faults", handler: admin.adminResetFaults },
  {
    method: "GET",
    pattern: /^\/__admin\/companies$/,
    key: "GET /__admin/companies",
    handler: admin.adminCompanies,
  },
  {
    method: "GET",
    pattern: /^\/__admin\/companies\/([^/]+)\/plans$/,
    key: "GET /__admin/companies/:cid/plans",
    handler: admin.adminListPlanIds,
  },
  {
    method: "GET",
    pattern: ADMIN_PLAN,
    key: "GET /__admin/companies/:cid/plans/:id",
    handler: admin.adminGetPlan,
  },
  {
    method: "PUT",
    pattern: ADMIN_PLAN,
    key: "PUT /__admin/companies/:cid/plans/:id",
    handler: admin.adminPutPlan,
  },
  {
    method: "DELETE",
    pattern: ADMIN_PLAN,
    key: "DELETE /__admin/companies/:cid/plans/:id",
    handler: admin.adminDeletePlan,
  },
  { method: "GET", pattern: ADMIN_DRIFT, key: "GET /__admin/drift", handler: admin.adminGetDrift },
  { method: "PUT", pattern: ADMIN_DRIFT, key: "PUT /__admin/drift", handler: admin.adminPutDrift },
  {
    method: "POST",
    pattern: /^\/__admin\/companies\/([^/]+)\/drift$/,
    key: "POST /__admin/companies/:cid/drift",
    handler: admin.adminDriftCompany,
  },
  { method: "GET", pattern: ADMIN_REPORT, key: "GET /__admin/reports/:id", handler: admin.adminGetReport },
  { method: "PUT", pattern: ADMIN_REPORT, key: "PUT /__admin/reports/:id", handler: admin.adminPutReport },
  {
    method: "DELETE",
    pattern: ADMIN_REPORT,
    key: "DELETE /__admin/reports/:id",
    handler: admin.adminDeleteReport,
  },
];

async function dispatch(req: IncomingMessage, res: ServerResponse, state: SimulatorState, basePath: string) {
  const url = new URL(req.url ?? "/", "http://simulator.invalid");
  const path = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : undefined;
  const candidates = path === undefined ? [] : ROUTES.filter((r) => r.pattern.test(path));
  const route = candidates.find((r) => r.method === req.method);
  const key = route?.key ?? (candidates.length > 0 ? "method not allowed" : "unknown");
  res.once("close", () => state.stats.record(key, res.writableFinished ? res.statusCode : "dropped"));
  if (key === CREATE_ROUTE) state.scenarios.attempts++;

  const body = await readBody(req, route?.serverError ? API_BODY_LIMIT : ADMIN_BODY_LIMIT);
  if (!route || path === undefined) {
    const allow = candidates.map((r) => r.method).join(", ");
    if (allow) sendError(res, 405, "METHOD_NOT_ALLOWED", `Use ${allow}`, { allow });
    else sendError(res, 404, "NOT_FOUND", `No such endpoint: ${url.pathname}`);
    return;
  }
  if (!body) {
    sendError(res, 413, "PAYLOAD_TOO_LARGE", "Request body too large");
    return;
  }
  const params = route.pattern.exec(path)?.slice(1) ?? [];
  const ctx: RequestContext = { req, res, url, params, body, state, nowMs: state.now() };
  if (route.serverError && (await injectFaults(ctx, route.serverError))) return;
  // Latency may have passed: token expiry is judged at answer time.
  ctx.nowMs = state.now();
  await route.handler(ctx);
}

/** The node:http listener of a simulator serving `state` under `basePath` ("" or "/Prefix"). */
export function createRequestListener(state: SimulatorState, basePath: string): RequestListener {
  return (req, res) => {
    dispatch(req, res, state, basePath).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, 500, "INTERNAL_SERVER_ERROR", `Simulator bug: ${String(err)}`);
    });
  };
}
