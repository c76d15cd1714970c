import { describe, expect, it } from "vitest";
import {
  AccessDeniedError,
  ApiError,
  type ApiErrorInit,
  ConnectionError,
  InvalidCredentialsError,
  InvalidRequestError,
  InvalidScenarioNameError,
  NotFoundError,
  ProjectNotFoundError,
  RateLimitedError,
  ResponseFormatError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  ValidationFailedError,
} from "../../src/api/errors.js";
import { classifyFailure, type Outcome } from "../../src/push/classify.js";
import { parentObject, scenarioRow } from "../../src/push/parent.js";
import type { WireScenario } from "../../src/wire/schemas.js";

const init = (status: number | undefined, code: string): ApiErrorInit => ({
  operation: "createScenario",
  status,
  code,
  detail: "server words",
});

/** The parts of an Outcome a case checks (the message is checked on its own). */
type Expect = {
  kind: Outcome["kind"];
  code?: string;
  sure?: boolean;
  tokenEndpoint?: boolean;
  retryAfterMs?: number | null;
};
/** [what, error, outcome when no earlier attempt is in doubt, outcome when one is]. */
type Case = [string, unknown, Expect, Expect];

const failed = (code: string): Expect => ({ kind: "failed", code });
const retry = (code: string, sure: boolean): Expect => ({ kind: "retry", code, sure });
const unauthorized: Expect = { kind: "unauthorized", tokenEndpoint: false };
const refusedByTokenEndpoint: Expect = { kind: "unauthorized", tokenEndpoint: true };
const limited = (retryAfterMs: number | null): Expect => ({
  kind: "rate-limited",
  code: "TOO_MANY_REQUESTS",
  retryAfterMs,
});

const cases: Case[] = [
  [
    "400 INVALID_SCENARIO_NAME",
    new InvalidScenarioNameError(init(400, "INVALID_SCENARIO_NAME")),
    failed("INVALID_SCENARIO_NAME"),
    { kind: "exists" },
  ],
  [
    "404 PROJECT_NOT_FOUND",
    new ProjectNotFoundError(init(404, "PROJECT_NOT_FOUND")),
    failed("PROJECT_NOT_FOUND"),
    failed("PROJECT_NOT_FOUND"),
  ],
  ["404 other", new NotFoundError(init(404, "NOT_FOUND")), failed("NOT_FOUND"), failed("NOT_FOUND")],
  [
    "400 INVALID_REQUEST",
    new InvalidRequestError(init(400, "INVALID_REQUEST")),
    failed("INVALID_REQUEST"),
    failed("INVALID_REQUEST"),
  ],
  [
    "403 ACCESS_DENIED",
    new AccessDeniedError(init(403, "ACCESS_DENIED")),
    failed("ACCESS_DENIED"),
    failed("ACCESS_DENIED"),
  ],
  [
    "422 VALIDATION_FAILED",
    new ValidationFailedError(init(422, "VALIDATION_FAILED")),
    failed("VALIDATION_FAILED"),
    failed("VALIDATION_FAILED"),
  ],
  ["418 (any other 4xx)", new ApiError(init(418, "HTTP_418")), failed("HTTP_418"), failed("HTTP_418")],
  [
    "token endpoint refusing the credentials",
    new InvalidCredentialsError({ ...init(401, "INVALID_CLIENT"), operation: "token" }),
    refusedByTokenEndpoint,
    refusedByTokenEndpoint,
  ],
  [
    "token endpoint denying access",
    new AccessDeniedError({ ...init(403, "ACCESS_DENIED"), operation: "token" }),
    refusedByTokenEndpoint,
    refusedByTokenEndpoint,
  ],
  [
    "token endpoint failing (the create was never sent)",
    new ServerError({ ...init(503, "INTERNAL_SERVER_ERROR"), operation: "token" }),
    retry("INTERNAL_SERVER_ERROR", true),
    retry("INTERNAL_SERVER_ERROR", true),
  ],
  [
    "401 UNAUTHORIZED_USER",
    new UnauthorizedError(init(401, "UNAUTHORIZED_USER")),
    unauthorized,
    unauthorized,
  ],
  [
    "429 with Retry-After",
    new RateLimitedError(init(429, "TOO_MANY_REQUESTS"), 1000),
    limited(1000),
    limited(1000),
  ],
  [
    "429 without Retry-After",
    new RateLimitedError(init(429, "TOO_MANY_REQUESTS"), null),
    limited(null),
    limited(null),
  ],
  [
    "500 INTERNAL_SERVER_ERROR",
    new ServerError(init(500, "INTERNAL_SERVER_ERROR")),
    retry("INTERNAL_SERVER_ERROR", false),
    retry("INTERNAL_SERVER_ERROR", false),
  ],
  ["timeout", new TimeoutError(init(undefined, "TIMEOUT")), retry("TIMEOUT", false), retry("TIMEOUT", false)],
  [
    "reset after sending",
    new ConnectionError(init(undefined, "CONNECTION_RESET"), true),
    retry("CONNECTION_RESET", false),
    retry("CONNECTION_RESET", false),
  ],
  [
    "connection refused (never sent)",
    new ConnectionError(init(undefined, "CONNECTION_FAILED"), false),
    retry("CONNECTION_FAILED", true),
    retry("CONNECTION_FAILED", true),
  ],
  [
    "2xx that is not a scenario",
    new ResponseFormatError(init(200, "NOT_JSON")),
    retry("NOT_JSON", false),
    retry("NOT_JSON", false),
  ],
  ["a bug (plain Error)", new Error("boom"), retry("UNEXPECTED", false), retry("UNEXPECTED", false)],
  ["a thrown string", "boom", retry("UNEXPECTED", false), retry("UNEXPECTED", false)],
];

describe("classifyFailure", () => {
  it.for(cases)("classifies %s", ([, err, certain, uncertain]) => {
    expect(classifyFailure(err, false)).toMatchObject(certain);
    expect(classifyFailure(err, true)).toMatchObject(uncertain);
  });

  it("keeps the server's words and the reason in the message", () => {
    const err = new InvalidScenarioNameError(init(400, "INVALID_SCENARIO_NAME"));
    expect(classifyFailure(err, false).message).toContain("server words");
    expect(classifyFailure(err, false).message).toContain("already used");
    expect(classifyFailure(new Error("boom"), false).message).toBe("boom");
    expect(classifyFailure("boom", true).message).toBe("boom");
  });
});

const FULL: WireScenario = {
  id: 1_000_001,
  type: "SELENIUM",
  scenario_name: "Login suite",
  description: "every way in",
  enabled: true,
  deleted: false,
  testrail_enabled: true,
  execute_mode: "AUTOMATED",
  source_file: "LoginSuite.java",
  max_execution_time: 900,
  project_id: 52511,
  childs: [],
  parameterized: false,
  has_parameterized_class: false,
  java_test_class: "LoginSuite",
  java_test_methods: "",
  test_scenario_java_parameters: [],
  group: false,
};

describe("parentObject", () => {
  it("builds the seed 2.1.1 parent object from the created scenario, as a group", () => {
    expect(parentObject(FULL)).toEqual({
      id: 1_000_001,
      type: "SELENIUM",
      scenario_name: "Login suite",
      description: "every way in",
      enabled: true,
      deleted: false,
      test_management_enabled: true,
      execute_mode: "AUTOMATED",
      project_id: 52511,
      parameterized: false,
      has_parameterized_class: false,
      test_scenario_java_parameters: [],
      group: true,
      childs: [],
    });
  });

  it("fills documented defaults when the answer left fields out", () => {
    expect(parentObject({ id: 7 })).toEqual({
      id: 7,
      type: null,
      scenario_name: null,
      description: null,
      enabled: true,
      deleted: false,
      test_management_enabled: false,
      execute_mode: null,
      project_id: null,
      parameterized: false,
      has_parameterized_class: false,
      test_scenario_java_parameters: [],
      group: true,
      childs: [],
    });
  });
});

describe("scenarioRow", () => {
  it("maps the answer to a scenarios row, keeping the raw text", () => {
    const raw = JSON.stringify(FULL);
    expect(scenarioRow(FULL, raw, "login-suite", 5251, "2025-03-01T10:00:00.000Z")).toEqual({
      id: 1_000_001,
      requestKey: "login-suite",
      companyId: 5251,
      projectId: 52511,
      type: "SELENIUM",
      scenarioName: "Login suite",
      description: "every way in",
      enabled: true,
      deleted: false,
      testrailEnabled: true,
      parentId: null,
      executeMode: "AUTOMATED",
      sourceFile: "LoginSuite.java",
      maxExecutionTime: 900,
      childsJson: "[]",
      parameterized: false,
      hasParameterizedClass: false,
      javaTestClass: "LoginSuite",
      javaTestMethods: "",
      testScenarioJavaParametersJson: "[]",
      isGroup: false,
      rawJson: raw,
      recordedAt: "2025-03-01T10:00:00.000Z",
    });
  });

  it.for([
    ["a parent object", { parent: { id: 42, scenario_name: "Suite" } }, 42],
    ["an empty parent", { parent: {} }, null],
    ["no parent", {}, null],
  ] as const)("takes the parent id from %s", ([, over, parentId]) => {
    const s = { ...FULL, ...over } as WireScenario;
    expect(scenarioRow(s, "{}", "k", 5251, "t").parentId).toBe(parentId);
  });

  it("leaves absent fields null instead of inventing them", () => {
    expect(scenarioRow({ id: 9 }, '{"id":9}', "k", 5252, "t")).toMatchObject({
      id: 9,
      companyId: 5252,
      projectId: null,
      scenarioName: null,
      childsJson: null,
      testScenarioJavaParametersJson: null,
      isGroup: null,
    });
  });
});
