import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningSimulator,
  SIM_CLIENT_ID,
  SIM_CLIENT_SECRET,
  startSimulator,
} from "../../src/simulator/server.js";
import { scenarioSchema, tokenResponseSchema } from "../../src/wire/schemas.js";

const BASIC = `Basic ${Buffer.from(`${SIM_CLIENT_ID}:${SIM_CLIENT_SECRET}`).toString("base64")}`;
const FORM = "application/x-www-form-urlencoded";

async function tokenRequest(sim: RunningSimulator, form: Record<string, string>, authorization = BASIC) {
  const res = await fetch(sim.tokenUrl, {
    method: "POST",
    headers: { authorization, "content-type": FORM },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function call(sim: RunningSimulator, path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const res = await fetch(`${sim.baseUrl}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as unknown) : undefined };
}

function createScenario(
  sim: RunningSimulator,
  projectId: number,
  body: Record<string, unknown>,
  company = 5251,
) {
  return call(sim, `/api/projects/${projectId}/scenarios`, {
    method: "POST",
    token: `sim-token-${company}`,
    headers: { "current-company-id": String(company), "content-type": "application/json" },
    body: JSON.stringify({ project_id: projectId, ...body }),
  });
}

describe("simulator auth", () => {
  let sim: RunningSimulator;
  // The service's clock, moved by the tests: a 1 s token expires when they say, not by timing.
  let clockMs = Date.now();
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, tokenTtlSeconds: 1, now: () => clockMs });
  });
  afterAll(() => sim.close());

  it("serves under the base path and issues password-grant tokens with the documented fields", async () => {
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/Testinium\.RestApi$/);
    const { status, body } = await tokenRequest(sim, {
      grant_type: "password",
      username: "user5251",
      password: "pass-5251",
    });
    expect(status).toBe(200);
    expect(tokenResponseSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ token_type: "bearer", expires_in: 1, scope: "read write" });
    expect(Object.keys(body).sort()).toEqual(
      ["access_token", "expires_in", "jti", "refresh_token", "scope", "token_type"].sort(),
    );
    const plans = await call(sim, "/api/plans", { token: String(body.access_token) });
    expect(plans.status).toBe(200);
    expect((plans.json as { company_id: number }[]).every((p) => p.company_id === 5251)).toBe(true);
  });

  it("rejects an expired access token with 401 and renews it with the refresh grant", async () => {
    const first = await tokenRequest(sim, {
      grant_type: "password",
      username: "user5252",
      password: "pass-5252",
    });
    const token = String(first.body.access_token);
    expect((await call(sim, "/api/plans", { token })).status).toBe(200);
    clockMs += 1_100;
    const expired = await call(sim, "/api/plans", { token });
    expect(expired.status).toBe(401);
    expect(expired.json).toMatchObject({ error: "Unauthorized" });
    const renewed = await tokenRequest(sim, {
      grant_type: "refresh_token",
      refresh_token: String(first.body.refresh_token),
    });
    expect(renewed.status).toBe(200);
    const plans = await call(sim, "/api/plans", { token: String(renewed.body.access_token) });
    expect((plans.json as { company_id: number }[])[0]?.company_id).toBe(5252);
  });

  it.each([
    [
      "bad client secret",
      { grant_type: "password", username: "user5251", password: "pass-5251" },
      "Basic eDp5",
      401,
      "INVALID_CLIENT",
    ],
    [
      "bad password",
      { grant_type: "password", username: "user5251", password: "nope" },
      BASIC,
      401,
      "INVALID_CLIENT",
    ],
    [
      "unknown user",
      { grant_type: "password", username: "who", password: "pass-5251" },
      BASIC,
      401,
      "INVALID_CLIENT",
    ],
    ["unsupported grant", { grant_type: "client_credentials" }, BASIC, 400, "INVALID_REQUEST"],
    ["missing password", { grant_type: "password", username: "user5251" }, BASIC, 400, "INVALID_REQUEST"],
    ["bad refresh token", { grant_type: "refresh_token", refresh_token: "x" }, BASIC, 400, "INVALID_REQUEST"],
  ])("token endpoint: %s -> %i %s", async (_name, form, authorization, status, error) => {
    const res = await tokenRequest(sim, form, authorization);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(typeof res.body.message).toBe("string");
    if (status === 401) expect(typeof res.body.error_description).toBe("string");
  });

  it.each([
    ["GET", "/api/plans", "Unauthorized"],
    ["GET", "/api/scheduled-reports/scheduled/132?companyId=5251", "UNAUTHORIZED"],
    ["POST", "/api/projects/52511/scenarios", "UNAUTHORIZED_USER"],
  ])("%s %s without a valid token -> 401 %s", async (method, path, error) => {
    for (const token of [undefined, "not-a-token"]) {
      const res = await call(sim, path, { method, token, headers: { "current-company-id": "5251" } });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ error, message: expect.any(String) });
    }
  });
});

describe("simulator scheduled reports", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  });
  afterAll(() => sim.close());

  const get = (id: number, query: string, header?: string, company = 5251) =>
    call(sim, `/api/scheduled-reports/scheduled/${id}${query}`, {
      token: `sim-token-${company}`,
      headers: header === undefined ? {} : { "current-company-id": header },
    });

  it("returns the company's own report with ISO UTC dates", async () => {
    const res = await get(132, "?companyId=5251", "5251");
    expect(res.status).toBe(200);
    const report = res.json as Record<string, unknown>;
    expect(report.id).toBe(132);
    expect(report.report_hour).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(report.status).toEqual(["SUCCESS"]);
  });

  it.each([
    ["another company's report", 135, "?companyId=5251", "5251", 403, "ACCESS_DENIED"],
    ["companyId of another company", 132, "?companyId=5252", "5251", 403, "ACCESS_DENIED"],
    ["header of another company", 132, "?companyId=5251", "5252", 403, "ACCESS_DENIED"],
    ["unknown id", 999_999, "?companyId=5251", "5251", 404, "NOT_FOUND"],
    ["missing current-company-id", 132, "?companyId=5251", undefined, 400, "INVALID_REQUEST"],
    ["missing companyId", 132, "", "5251", 400, "INVALID_REQUEST"],
    ["non-numeric companyId", 132, "?companyId=abc", "5251", 400, "INVALID_REQUEST"],
  ])("%s -> %i %s", async (_name, id, query, header, status, error) => {
    const res = await get(id, query, header);
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ error, message: expect.any(String) });
  });
});

describe("simulator create scenario", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  });
  afterAll(() => sim.close());

  it("creates a scenario with the full documented shape and java_test_class from source_file", async () => {
    const res = await createScenario(sim, 52511, {
      source_file: "Works.spec",
      scenario_name: "Login works",
      description: "d",
      testrail_enabled: true,
      max_execution_time: 120,
      java_test_methods: "testLogin",
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      type: "SELENIUM",
      scenario_name: "Login works",
      java_test_class: "Works",
      testrail_enabled: true,
      execute_mode: "AUTOMATED",
      enabled: true,
      deleted: false,
      childs: [],
      group: false,
      project_id: 52511,
      max_execution_time: 120,
    });
    expect(res.json).not.toHaveProperty("parent");
    expect(scenarioSchema.safeParse(res.json).success).toBe(true);
  });

  it("rejects a second scenario with the same name in the project with INVALID_SCENARIO_NAME", async () => {
    expect((await createScenario(sim, 52512, { source_file: "a.js", scenario_name: "dup" })).status).toBe(
      200,
    );
    const again = await createScenario(sim, 52512, { source_file: "a.js", scenario_name: "dup" });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ error: "INVALID_SCENARIO_NAME" });
    // Same name in another project is fine.
    expect((await createScenario(sim, 52513, { source_file: "a.js", scenario_name: "dup" })).status).toBe(
      200,
    );
  });

  it("answers PROJECT_NOT_FOUND for an unknown project and for another company's project", async () => {
    for (const project of [99_999, 52521]) {
      const res = await createScenario(sim, project, { source_file: "a.js", scenario_name: `p${project}` });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ error: "PROJECT_NOT_FOUND" });
    }
  });

  it("creates a sub scenario, echoes its parent and marks the parent as a group", async () => {
    const parent = await createScenario(sim, 52511, { source_file: "Group.spec", scenario_name: "group" });
    const parentId = (parent.json as { id: number }).id;
    const child = await createScenario(sim, 52511, {
      source_file: "Child.spec",
      scenario_name: "child",
      parent: { id: parentId, scenario_name: "group", group: true, childs: [] },
    });
    expect(child.status).toBe(200);
    expect(child.json).toMatchObject({ parent: { id: parentId, group: true }, group: false });
    expect(scenarioSchema.safeParse(child.json).success).toBe(true);
    const admin = await call(sim, "/__admin/scenarios");
    const rows = (admin.json as { scenarios: { scenario_name: string; parent_id: number | null }[] })
      .scenarios;
    expect(rows.find((r) => r.scenario_name === "child")?.parent_id).toBe(parentId);
    expect(sim.state.scenarios.get(parentId)?.group).toBe(true);
  });

  it.each([
    ["project_id not matching the path", { project_id: 52512, source_file: "a.js", scenario_name: "x1" }],
    ["missing scenario_name", { source_file: "a.js" }],
    ["missing source_file", { scenario_name: "x2" }],
    ["unknown parent", { source_file: "a.js", scenario_name: "x3", parent: { id: 42 } }],
  ])("rejects %s with 400 INVALID_REQUEST", async (_name, body) => {
    const res = await createScenario(sim, 52511, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "INVALID_REQUEST" });
  });

  it("requires current-company-id and denies another company's id", async () => {
    const base = { method: "POST", token: "sim-token-5251", body: JSON.stringify({}) };
    const missing = await call(sim, "/api/projects/52511/scenarios", base);
    expect(missing.status).toBe(400);
    const other = await call(sim, "/api/projects/52511/scenarios", {
      ...base,
      headers: { "current-company-id": "5252" },
    });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ error: "ACCESS_DENIED" });
  });

  it("counts every create attempt, failed ones included", async () => {
    const before = sim.state.scenarios.attempts;
    await createScenario(sim, 99_999, { source_file: "a.js", scenario_name: "nope" });
    expect(sim.state.scenarios.attempts).toBe(before + 1);
    const admin = await call(sim, "/__admin/scenarios");
    expect((admin.json as { attempts: number }).attempts).toBe(before + 1);
  });
});
