import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, plans: 10 });
});
afterAll(() => sim.close());
afterEach(async () => {
  await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
});

const AUTH = { authorization: "Bearer sim-token-5251", "current-company-id": "5251" };

function putFaults(faults: Record<string, unknown>) {
  return fetch(`${sim.baseUrl}/__admin/faults`, { method: "PUT", body: JSON.stringify(faults) });
}

function create(name: string) {
  return fetch(`${sim.baseUrl}/api/projects/52511/scenarios`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: JSON.stringify({ project_id: 52511, source_file: "Drop.spec", scenario_name: name }),
  });
}

async function adminScenarioNames(): Promise<string[]> {
  const res = await fetch(`${sim.baseUrl}/__admin/scenarios`);
  const body = (await res.json()) as { scenarios: { scenario_name: string }[] };
  return body.scenarios.map((s) => s.scenario_name);
}

describe("simulator faults", () => {
  it("drop-after-commit stores the scenario but cuts the connection without an answer", async () => {
    sim.state.setFaults({ dropAfterCommitRate: 1 });
    await expect(create("dropped one")).rejects.toThrow();
    expect(await adminScenarioNames()).toContain("dropped one");
    expect(sim.state.stats.count("POST /api/projects/:projectId/scenarios", "dropped")).toBe(1);
    // A retry of the committed create is recognisable by its error name.
    sim.state.setFaults({ dropAfterCommitRate: 0 });
    const retry = await create("dropped one");
    expect(retry.status).toBe(400);
    expect(await retry.json()).toMatchObject({ error: "INVALID_SCENARIO_NAME" });
  });

  it("answers 429 with Retry-After on /api but never on the token endpoint or __admin", async () => {
    expect((await putFaults({ rateLimitRate: 1, retryAfterSeconds: 7 })).status).toBe(200);
    const res = await fetch(`${sim.baseUrl}/api/plans`, { headers: AUTH });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(await res.json()).toMatchObject({ error: "TOO_MANY_REQUESTS" });
    const token = await fetch(sim.tokenUrl, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from("tas-sync-sim:sim-client-secret").toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=password&username=user5251&password=pass-5251",
    });
    expect(token.status).toBe(200);
    expect((await fetch(`${sim.baseUrl}/__admin/stats`)).status).toBe(200);
  });

  it.each([
    ["/api/plans", "GET", "Internal Server Error"],
    ["/api/scheduled-reports/scheduled/132?companyId=5251", "GET", "INTERNAL_SERVER_ERROR"],
  ])("errorRate 1 makes %s answer 500 %s", async (path, method, error) => {
    sim.state.setFaults({ errorRate: 1 });
    const res = await fetch(`${sim.baseUrl}${path}`, { method, headers: AUTH });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error });
  });

  it("a 500 on create stores nothing", async () => {
    sim.state.setFaults({ errorRate: 1 });
    const res = await create("never stored");
    expect(res.status).toBe(500);
    expect(await adminScenarioNames()).not.toContain("never stored");
  });

  it("applies a partial fault update and rejects invalid settings", async () => {
    const res = await putFaults({ latencyMs: 50 });
    expect(await res.json()).toMatchObject({ latencyMs: 50, errorRate: 0, rateLimitRate: 0 });
    const started = Date.now();
    await fetch(`${sim.baseUrl}/api/plans`, { headers: AUTH });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    for (const bad of [{ errorRate: 2 }, { nope: 1 }, { latencyMs: "x" }]) {
      expect((await putFaults(bad)).status).toBe(400);
    }
  });

  it("fires a fractional fault rate reproducibly from the seed", async () => {
    const statuses = async (seed: number) => {
      const s = await startSimulator({ port: 0, plans: 1, seed, faults: { errorRate: 0.5 } });
      try {
        const out: number[] = [];
        for (let i = 0; i < 40; i++) {
          out.push((await fetch(`${s.baseUrl}/api/plans`, { headers: AUTH })).status);
        }
        return out;
      } finally {
        await s.close();
      }
    };
    const first = await statuses(3);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(5);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(5);
    expect(await statuses(3)).toEqual(first);
  });
});
