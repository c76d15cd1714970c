/**
 * The simulator's timing and answer-cutting faults: plan-list delays (always or once), slow
 * requests, 429 bursts, and creates cut after half their answer. No test measures a duration:
 * delays are long, and a test waits for the simulator to report a request held. A held request
 * stays held after its client leaves (a real server keeps processing); closing ends it.
 */
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { ConnectionError, InvalidScenarioNameError, TimeoutError } from "../../src/api/errors.js";
import { HttpTransport } from "../../src/api/http.js";
import { CREATE_ROUTE } from "../../src/simulator/router.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { fastSleep, logger } from "./sync-harness.js";

const LONG = 600_000; // far beyond any test: a held request is only ever released by its client
const AUTH = { authorization: "Bearer sim-token-5251", "current-company-id": "5251" };

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, plans: 3 });
});
afterAll(() => sim.close());
afterEach(async () => {
  await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
});

const putFaults = (faults: Record<string, unknown>) =>
  fetch(`${sim.baseUrl}/__admin/faults`, { method: "PUT", body: JSON.stringify(faults) });
const getFaults = async () =>
  (await (await fetch(`${sim.baseUrl}/__admin/faults`)).json()) as Record<string, number>;
const held = async () =>
  ((await (await fetch(`${sim.baseUrl}/__admin/stats`)).json()) as { held: number }).held;

const plans = (signal?: AbortSignal) =>
  fetch(`${sim.baseUrl}/api/plans`, { headers: AUTH, ...(signal ? { signal } : {}) });
const report = () =>
  fetch(`${sim.baseUrl}/api/scheduled-reports/scheduled/132?companyId=5251`, { headers: AUTH });
const create = (name: string) =>
  fetch(`${sim.baseUrl}/api/projects/52511/scenarios`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: JSON.stringify({ project_id: 52511, source_file: "F.spec", scenario_name: name }),
  });

/** Starts a plan-list request and waits until the simulator holds it; `headers` flips when they arrive. */
async function heldPlanList() {
  const abort = new AbortController();
  const state = { headers: false };
  const before = await held();
  const pending = plans(abort.signal).then(
    (res) => {
      state.headers = true;
      return res;
    },
    () => null,
  );
  await expect.poll(held).toBe(before + 1);
  return { abort, state, pending };
}

function transport(timeoutMs: number): HttpTransport {
  return new HttpTransport({
    timeoutMs,
    maxAttempts: 1,
    maxRequestsPerSecond: 1000,
    connections: 4,
    logger,
    sleep: fastSleep,
  });
}

function client(http: HttpTransport): TasClient {
  return new TasClient({
    http,
    baseUrl: sim.baseUrl,
    auth: new StaticTokenProvider("sim-token-5251"),
    companyId: 5251,
    maxAttempts: 1,
    logger,
    sleep: fastSleep,
  });
}

describe("planListDelayMs", () => {
  it("holds GET /api/plans before its first byte, and only it: reports and creates answer meanwhile", async () => {
    await putFaults({ planListDelayMs: LONG });
    const list = await heldPlanList();
    expect((await report()).status).toBe(200);
    expect((await create("while the list waits")).status).toBe(200);
    expect(list.state.headers).toBe(false);
    // Still set: the next list waits too.
    const second = await heldPlanList();
    expect(second.state.headers).toBe(false);
    list.abort.abort();
    second.abort.abort();
    expect(await list.pending).toBeNull();
  });
});

describe("many held requests", () => {
  it("holds 30 at once without a MaxListenersExceededWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      await putFaults({ planListDelayMs: LONG });
      const before = await held();
      const abort = new AbortController();
      const lists = Array.from({ length: 30 }, () => plans(abort.signal).catch(() => null));
      await expect.poll(held).toBe(before + 30);
      abort.abort();
      for (const l of lists) expect(await l).toBeNull();
      // A warning is emitted on the next tick: let one pass.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });
});

describe("planListDelayOnceMs", () => {
  it("holds the next GET /api/plans only, then resets itself to 0", async () => {
    const res = await putFaults({ planListDelayOnceMs: LONG });
    expect(await res.json()).toMatchObject({ planListDelayOnceMs: LONG });
    const first = await heldPlanList();
    expect(await getFaults()).toMatchObject({ planListDelayOnceMs: 0 });
    const second = await plans();
    expect(second.status).toBe(200);
    expect(((await second.json()) as unknown[]).length).toBe(3);
    expect(first.state.headers).toBe(false);
    first.abort.abort();
  });
});

describe("slowRate and slowMs", () => {
  it("answers /api requests only after slowMs, so a client with a shorter timeout times out", async () => {
    await putFaults({ slowRate: 1, slowMs: LONG });
    const http = transport(300);
    try {
      const err = await client(http)
        .getScheduledReport(132)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect((err as TimeoutError).code).toBe("TIMEOUT");
      // The token endpoint and __admin are never slowed.
      expect((await fetch(`${sim.baseUrl}/__admin/stats`)).status).toBe(200);
    } finally {
      await http.close();
    }
  });

  it("slows the seeded fraction of requests only", async () => {
    const s = await startSimulator({ port: 0, plans: 1, seed: 5, faults: { slowRate: 0.5, slowMs: LONG } });
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        const before = s.state.stats.held;
        const abort = new AbortController();
        const answer = fetch(`${s.baseUrl}/api/plans`, { headers: AUTH, signal: abort.signal }).then(
          (r) => `answered ${r.status}`,
          () => "held",
        );
        // Answered at once, or held: the stats say which before the request is given up.
        await expect
          .poll(
            async () =>
              s.state.stats.held - before + Number((await Promise.race([answer, "pending"])) !== "pending"),
          )
          .toBe(1);
        abort.abort();
        outcomes.push(await answer);
      }
      expect(outcomes.filter((o) => o === "held").length).toBeGreaterThan(1);
      expect(outcomes.filter((o) => o === "answered 200").length).toBeGreaterThan(1);
      expect(s.state.stats.held).toBe(outcomes.filter((o) => o === "held").length);
    } finally {
      await s.close();
    }
    // Closing ends every delay at once: no timer outlives the simulator.
    await expect.poll(() => s.state.stats.held).toBe(0);
  });

  it("still processes a slow create after its client gave up (it may be stored anyway)", async () => {
    const s = await startSimulator({ port: 0, plans: 1, faults: { slowRate: 1, slowMs: 1000 } });
    try {
      const abort = new AbortController();
      const gone = fetch(`${s.baseUrl}/api/projects/52511/scenarios`, {
        method: "POST",
        headers: { ...AUTH, "content-type": "application/json" },
        body: JSON.stringify({ project_id: 52511, source_file: "S.spec", scenario_name: "given up" }),
        signal: abort.signal,
      }).catch(() => "aborted");
      await expect.poll(() => s.state.stats.held).toBe(1);
      abort.abort();
      expect(await gone).toBe("aborted");
      await expect
        .poll(() => s.state.scenarios.adminList().map((x) => x.scenario_name))
        .toContain("given up");
    } finally {
      await s.close();
    }
  });
});

describe("rateLimitBurst", () => {
  it("answers the next N /api requests 429 after a 429 fires, whatever the route, then recovers", async () => {
    await putFaults({ rateLimitRate: 1, rateLimitBurst: 3, retryAfterSeconds: 2 });
    expect((await plans()).status).toBe(429);
    await putFaults({ rateLimitRate: 0 });
    const burst = [await report(), await create("in the burst"), await plans()];
    expect(burst.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(burst[1]?.headers.get("retry-after")).toBe("2");
    expect((await plans()).status).toBe(200);
    const names = (await (await fetch(`${sim.baseUrl}/__admin/scenarios`)).json()) as {
      scenarios: { scenario_name: string }[];
    };
    expect(names.scenarios.map((x) => x.scenario_name)).not.toContain("in the burst");
  });

  it("is cleared by DELETE /__admin/faults", async () => {
    await putFaults({ rateLimitRate: 1, rateLimitBurst: 50 });
    expect((await plans()).status).toBe(429);
    await fetch(`${sim.baseUrl}/__admin/faults`, { method: "DELETE" });
    expect((await plans()).status).toBe(200);
  });
});

describe("dropHalfRate", () => {
  it("stores the scenario, sends 200 with headers and half the body, then cuts the connection", async () => {
    await putFaults({ dropHalfRate: 1 });
    const body = JSON.stringify({ project_id: 52511, source_file: "H.spec", scenario_name: "half answered" });
    const seen = await new Promise<{ status: number; length: number; received: number; error: string }>(
      (resolve) => {
        const req = httpRequest(`${sim.baseUrl}/api/projects/52511/scenarios`, {
          method: "POST",
          headers: { ...AUTH, "content-type": "application/json" },
        });
        req.on("response", (res) => {
          let received = 0;
          res.on("data", (c: Buffer) => {
            received += c.length;
          });
          res.on("error", (e) =>
            resolve({
              status: res.statusCode ?? 0,
              length: Number(res.headers["content-length"]),
              received,
              error: (e as NodeJS.ErrnoException).code ?? e.message,
            }),
          );
        });
        req.end(body);
      },
    );
    expect(seen.status).toBe(200);
    expect(seen.received).toBeGreaterThan(0);
    expect(seen.received).toBe(Math.floor(seen.length / 2));
    expect(seen.error).toBe("ECONNRESET");
    expect(sim.state.stats.count(CREATE_ROUTE, "dropped")).toBeGreaterThanOrEqual(1);
    const names = (await (await fetch(`${sim.baseUrl}/__admin/scenarios`)).json()) as {
      scenarios: { scenario_name: string }[];
    };
    expect(names.scenarios.map((x) => x.scenario_name)).toContain("half answered");
  });

  it("leaves the client with an unknown outcome, which the retry's name clash resolves", async () => {
    await putFaults({ dropHalfRate: 1 });
    const http = transport(10_000);
    try {
      const tas = client(http);
      const payload = JSON.stringify({
        project_id: 52511,
        source_file: "H.spec",
        scenario_name: "half again",
      });
      const err = await tas.createScenario(52511, payload).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect((err as ConnectionError).outcomeUnknown).toBe(true);
      await putFaults({ dropHalfRate: 0 });
      await expect(tas.createScenario(52511, payload)).rejects.toBeInstanceOf(InvalidScenarioNameError);
    } finally {
      await http.close();
    }
  });
});

describe("PUT /__admin/faults with the new options", () => {
  it.each([
    [{ slowRate: 1.5 }, "slowRate must be between 0 and 1"],
    [{ dropHalfRate: -0.1 }, "dropHalfRate must be a non-negative number"],
    [{ rateLimitBurst: 1.5 }, "rateLimitBurst must be a whole number"],
    [{ planListDelayMs: 3e9 }, "planListDelayMs must be at most 2147483647 ms"],
    [{ planListDelayOnceMs: "5" }, "planListDelayOnceMs must be a non-negative number"],
    [JSON.parse('{"toString": 1}') as Record<string, unknown>, "unknown fault option: toString"],
  ])("refuses %j", async (patch, message) => {
    const res = await putFaults(patch);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "INVALID_REQUEST", message });
  });

  it("accepts them all and shows them in GET", async () => {
    const all = {
      planListDelayMs: 5,
      planListDelayOnceMs: 6,
      slowRate: 0.25,
      slowMs: 7,
      rateLimitBurst: 2,
      dropHalfRate: 0.5,
    };
    expect((await putFaults(all)).status).toBe(200);
    expect(await getFaults()).toMatchObject(all);
  });
});
