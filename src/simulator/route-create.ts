/**
 * POST /api/projects/{projectId}/scenarios (seed 4.1). Checks run in the order a Spring
 * service would: authentication, company header, project, body, then business rules. The
 * duplicate-name check precedes the parent check so that a retried create whose first attempt
 * was stored always answers INVALID_SCENARIO_NAME, the client's idempotency signal.
 */
import type { RequestContext } from "./context.js";
import { parseId, parseJson, sendError, sendHalfThenCut, sendJson } from "./http.js";
import { authorize, checkCompanyHeader } from "./route-api.js";
import type { NewScenario } from "./scenarios.js";

const DEFAULT_MAX_EXECUTION_TIME = 600;

type Body = Record<string, unknown>;

function isObject(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Optional field of the given JS type; null counts as absent (Java clients send nulls). */
function optional<T>(body: Body, key: string, isType: (v: unknown) => v is T): { ok: boolean; value?: T } {
  const value = body[key];
  if (value === undefined || value === null) return { ok: true };
  return isType(value) ? { ok: true, value } : { ok: false };
}

const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);

/** Parent id from the request: null for none (absent, null or {}), undefined when malformed. */
function parentId(body: Body): number | null | undefined {
  const parent = body.parent;
  if (parent === undefined || parent === null) return null;
  if (!isObject(parent)) return undefined;
  if (parent.id === undefined && Object.keys(parent).length === 0) return null;
  return isInt(parent.id) ? parent.id : undefined;
}

/** Validated scenario fields, or an error text for 400 INVALID_REQUEST. */
function readBody(body: unknown, projectId: number, companyId: number): NewScenario | string {
  if (!isObject(body)) return "Request body must be a JSON object";
  if (!isInt(body.project_id)) return "project_id is required and must be an integer";
  if (body.project_id !== projectId) return "project_id does not match the path";
  if (!isString(body.source_file) || body.source_file.length === 0) return "source_file is required";
  if (!isString(body.scenario_name)) return "scenario_name is required";
  const description = optional(body, "description", isString);
  const testrail = optional(body, "testrail_enabled", isBoolean);
  const maxTime = optional(body, "max_execution_time", isInt);
  const methods = optional(body, "java_test_methods", isString);
  const flags = ["jira_enabled", "xray_enabled"].map((k) => optional(body, k, isBoolean));
  if (![description, testrail, maxTime, methods, ...flags].every((f) => f.ok))
    return "Field of the wrong type";
  const parent = parentId(body);
  if (parent === undefined) return "parent must be an object with an integer id";
  return {
    companyId,
    projectId,
    scenarioName: body.scenario_name,
    description: description.value ?? "",
    sourceFile: body.source_file,
    testrailEnabled: testrail.value ?? false,
    maxExecutionTime: maxTime.value ?? DEFAULT_MAX_EXECUTION_TIME,
    javaTestMethods: methods.value ?? "",
    parentId: parent,
  };
}

export function handleCreateScenario(ctx: RequestContext): void {
  const { res, state } = ctx;
  const companyId = authorize(ctx, "UNAUTHORIZED_USER");
  if (companyId === undefined) return;
  if (!checkCompanyHeader(ctx, companyId)) return;
  const projectId = parseId(ctx.params[0]);
  if (projectId === undefined || state.projectCompany(projectId) !== companyId) {
    sendError(res, 404, "PROJECT_NOT_FOUND", `Project ${ctx.params[0] ?? ""} not found`);
    return;
  }
  const json = parseJson(ctx.body.toString("utf8"));
  const input = json.ok ? readBody(json.value, projectId, companyId) : "Request body is not valid JSON";
  if (typeof input === "string") {
    sendError(res, 400, "INVALID_REQUEST", input);
    return;
  }
  const taken = !state.faults.namesNotUnique && state.scenarios.hasName(projectId, input.scenarioName);
  if (input.scenarioName.trim() === "" || taken) {
    sendError(res, 400, "INVALID_SCENARIO_NAME", "Scenario name is invalid or already exists");
    return;
  }
  if (input.parentId !== null && state.scenarios.get(input.parentId)?.projectId !== projectId) {
    sendError(res, 400, "INVALID_REQUEST", `Parent scenario ${input.parentId} not found in project`);
    return;
  }
  const created = state.scenarios.create(input, ctx.nowMs);
  // Fault: the write is committed but the answer never arrives (client sees a socket error).
  if (state.dice.roll(state.faults.dropAfterCommitRate)) {
    ctx.req.socket.destroy();
    return;
  }
  // Fault: committed, and the answer starts (200, headers, half the body) but breaks off.
  if (state.dice.roll(state.faults.dropHalfRate)) {
    sendHalfThenCut(res, 200, Buffer.from(JSON.stringify(state.scenarios.wire(created)), "utf8"));
    return;
  }
  sendJson(res, 200, state.scenarios.wire(created));
}
