/**
 * Getting a push going again: retry-failed, resume-push after a refused token, and re-running
 * a file whose rows were reset. Nothing may be created twice, and nothing may hang.
 */
import { writeFileSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { createScenarioFor } from "../../src/push/create.js";
import { RateLimitGate } from "../../src/push/gate.js";
import { CREDENTIALS_REFUSED } from "../../src/push/held.js";
import { loadSeed, newRequests } from "../../src/push/submit.js";
import { createClients } from "../../src/runtime.js";
import { CREATE_ROUTE } from "../../src/simulator/router.js";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "../../src/simulator/server.js";
import { failInserts, storeKinds } from "../support/stores.js";
import {
  COMPANY,
  logger,
  MISSING_PROJECT,
  notOnce,
  type PushHarness,
  seedRow,
  simConfig,
  startPushHarness,
} from "./push-harness.js";

describe.each(storeKinds())("push recovery on $name", (kind) => {
  let h: PushHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  afterAll(() => kind.cleanup());

  it("keeps an unanswered last attempt in mind, so retry-failed then finds the row exists", async () => {
    h = await startPushHarness(kind, {
      // A repeated name is refused (API-FACTS): what tells the retry that the row exists.
      sim: { faults: { dropAfterCommitRate: 1, namesNotUnique: 0 } },
      config: { push: { ratePerSecond: 200, concurrency: 2, maxAttempts: 1, lockDurationMs: 1000 } },
    });
    const file = h.seed("lost.ndjson", [seedRow("Lost answer")]);
    const first = await h.cli(["push", file, "--wait"]);
    expect(first.code).toBe(1);
    expect(await h.request("Lost answer")).toMatchObject({
      status: "failed",
      error_code: "CONNECTION_RESET",
    });
    // The service did create it: the answer was dropped after the commit.
    expect(await h.scenarios()).toHaveLength(1);

    await h.setFaults({ dropAfterCommitRate: 0 });
    const retry = await h.cli(["retry-failed"]);
    expect(retry.code).toBe(0);
    expect(retry.out).toEqual([
      "1 failed row(s) back to pending; 1 queued now (the daemon or push --wait creates them)",
    ]);
    const again = await h.cli(["push", file, "--wait"]);
    expect(again.out).toContain("created 0, already existed 1, failed 0");
    expect(again.code).toBe(0);
    expect(await h.request("Lost answer")).toMatchObject({ status: "exists", attempts: 2 });
    expect(await h.scenarios()).toHaveLength(1);
  });

  it("fails again, instead of waiting forever, a child put back while its parent stays failed", async () => {
    h = await startPushHarness(kind);
    const t = h;
    const file = t.seed("orphans.ndjson", [
      seedRow("Ghost suite", { project_id: MISSING_PROJECT }),
      seedRow("Ghost child", { project_id: MISSING_PROJECT, parent_key: "Ghost suite" }),
    ]);
    expect((await t.cli(["push", file, "--wait"])).code).toBe(1);
    const retry = await t.cli(["retry-failed", "--code", "PARENT_FAILED"]);
    expect(retry.out).toEqual([
      "1 failed row(s) back to pending; 0 queued now (the daemon or push --wait creates them)",
    ]);
    expect(await t.request("Ghost child")).toMatchObject({ status: "failed", error_code: "PARENT_FAILED" });

    // A child left pending under a failed parent (as an older retry-failed left it).
    const store = await t.store();
    expect(await store.outbox.resetFailed({ code: "PARENT_FAILED" }, new Date().toISOString())).toEqual([
      "Ghost child",
    ]);
    // It settles (the test's timeout bounds the wait) instead of waiting for the child forever.
    const again = await t.cli(["push", file, "--wait"]);
    expect(again.out).toContain("created 0, already existed 0, failed 1");
    expect(again.code).toBe(1);
    expect(await t.request("Ghost child")).toMatchObject({ status: "failed", error_code: "PARENT_FAILED" });
    expect(await t.request("Ghost suite")).toMatchObject({ status: "failed", attempts: 1 });
    expect(await t.createAttempts()).toBe(1);
  }, 20_000);

  it("creates the held rows once after the token is fixed and the company resumed", async () => {
    const WRONG = "wrong-token-Vb2kR9";
    // One attempt only: had the 401 used it up, the row could not be created after resuming.
    const push = { ratePerSecond: 200, concurrency: 2, maxAttempts: 1, lockDurationMs: 1000 };
    h = await startPushHarness(kind, {
      config: { companies: [{ id: COMPANY, auth: { token: WRONG } }], push },
    });
    const t = h;
    const file = t.seed("refused.ndjson", [
      seedRow("Refused suite"),
      seedRow("Refused child", { parent_key: "Refused suite" }),
    ]);
    expect((await t.cli(["push", file, "--wait"])).code).toBe(1);
    const held = JSON.parse((await t.cli(["status", "--json"])).out.join("\n"));
    expect(held.queues.push).toMatchObject({ paused: false, jobs: { waiting: 0, active: 0, delayed: 0 } });
    expect(held.outbox).toMatchObject({ held: 2, failed: 0 });
    expect(held.outbox.held_companies).toEqual([
      expect.objectContaining({ company_id: COMPANY, rows: 2, code: "CREDENTIALS_REFUSED" }),
    ]);

    const good = simConfig(t.sim, t.database, t.prefix, { push });
    writeFileSync(t.configPath, JSON.stringify(good));
    expect((await t.cli(["resume-push", "--company", String(COMPANY)])).out).toEqual([
      `2 held row(s) of company ${COMPANY} go on; 1 queued now (the daemon or push --wait creates them)`,
    ]);
    const run = await t.cli(["push", file, "--wait"]);
    expect(run.out).toContain("created 2, already existed 0, failed 0");
    expect(run.code).toBe(0);
    const sim = await t.scenarios();
    expect(sim).toHaveLength(2);
    expect(notOnce(await t.createdPerKey(), ["Refused suite", "Refused child"])).toEqual([]);
    expect(t.sim.state.stats.count(CREATE_ROUTE, 401)).toBe(1);
  });

  it("re-authenticates once when the service drops our token mid-push, and goes on", async () => {
    h = await startPushHarness(kind);
    const t = h;
    const auth = {
      tokenUrl: t.sim.tokenUrl,
      clientId: SIM_CLIENT_ID,
      clientSecret: SIM_CLIENT_SECRET,
      username: `user${COMPANY}`,
      password: `pass-${COMPANY}`,
    };
    const cfg = parseConfig(
      simConfig(t.sim, t.database, t.prefix, { companies: [{ id: COMPANY, auth }] }),
      "test config",
    );
    const store = await t.store();
    const now = new Date().toISOString();
    const seed = await loadSeed(cfg, t.seed("reauth.ndjson", [seedRow("Before"), seedRow("After")]));
    await store.outbox.record(newRequests(seed.rows()), "b", seed.file, now);
    await store.outbox.takeReady(now);
    const clients = createClients(cfg, logger);
    // Each send takes a slot of the shared rate limit: whether the row was marked in flight yet.
    let current = "Before";
    const slots: [string, boolean][] = [];
    const acquireSlot = async () => {
      slots.push([current, Boolean((await t.request(current)).in_flight)]);
    };
    const deps = { outbox: store.outbox, clientFor: clients.clientFor, acquireSlot, logger };
    try {
      expect(await createScenarioFor(deps, "Before")).toMatchObject({ status: "created" });
      // The service forgets every token it issued (a restart, a revocation).
      (t.sim.state.tokens as unknown as { access: Map<string, unknown> }).access.clear();
      current = "After";
      expect(await createScenarioFor(deps, "After")).toMatchObject({ status: "created" });
    } finally {
      await clients.close();
    }
    // The slot, then the write-ahead, then the send; the resend after the 401 (the same attempt)
    // takes a slot of its own and writes nothing ahead again.
    expect(slots).toEqual([
      ["Before", false],
      ["After", false],
      ["After", true],
    ]);
    const stats = t.sim.state.stats;
    expect(stats.count(CREATE_ROUTE, 401)).toBe(1);
    expect(stats.count(CREATE_ROUTE, 200)).toBe(2);
    expect(stats.count("POST /oauth/token", 200)).toBe(2);
    expect(await t.request("After")).toMatchObject({ status: "created", attempts: 1, uncertain: 0 });
  });

  it("keeps a probe a probe through a 500 and a 429, and releases its company's held rows once it gets through", async () => {
    h = await startPushHarness(kind);
    const t = h;
    const store = await t.store();
    const now = new Date().toISOString();
    const seed = await loadSeed(
      t.cfg,
      t.seed("probe.ndjson", [seedRow("Held 1"), seedRow("Held 2"), seedRow("Held 3")]),
    );
    await store.outbox.record(newRequests(seed.rows()), "b", seed.file, now);
    await store.outbox.takeReady(now);
    expect(await store.outbox.hold(COMPANY, { code: CREDENTIALS_REFUSED, message: "refused" }, now)).toBe(3);
    const [probe, ...more] = await store.outbox.probeHeld(now);
    expect(more).toEqual([]);
    const others = ["Held 1", "Held 2", "Held 3"].filter((k) => k !== probe);
    const statuses = async () => Promise.all(others.map(async (k) => (await t.request(k)).status));
    let clock = Date.now();
    const clients = createClients(t.cfg, logger);
    const deps = {
      outbox: store.outbox,
      clientFor: clients.clientFor,
      acquireSlot: async () => {},
      gate: new RateLimitGate("company", () => clock),
      logger,
    };
    try {
      // A 500 and a 429 come before the service looks at the token: they say nothing of it.
      await t.setFaults({ errorRate: 1 });
      expect(await createScenarioFor(deps, probe as string)).toMatchObject({ status: "retry" });
      expect(await statuses()).toEqual(["held", "held"]);
      await t.setFaults({ errorRate: 0, rateLimitRate: 1, retryAfterSeconds: 1 });
      expect(await createScenarioFor(deps, probe as string)).toMatchObject({ status: "later" });
      expect(await statuses()).toEqual(["held", "held"]);
      await t.setFaults({ rateLimitRate: 0 });
      clock += 2000;
      const created = await createScenarioFor(deps, probe as string);
      expect(created).toMatchObject({ status: "created" });
      expect((created as { ready: string[] }).ready.sort()).toEqual(others);
    } finally {
      await clients.close();
    }
    expect(await statuses()).toEqual(["queued", "queued"]);
    expect(t.sim.state.stats.count(CREATE_ROUTE, 500)).toBe(1);
    expect(t.sim.state.stats.count(CREATE_ROUTE, 429)).toBe(1);
  });

  it("keeps the id when recording a created scenario fails locally once", async () => {
    h = await startPushHarness(kind);
    const t = h;
    const cfg = parseConfig(simConfig(t.sim, t.database, t.prefix, {}), "test config");
    const store = await t.store();
    const now = new Date().toISOString();
    const seed = await loadSeed(
      cfg,
      t.seed("local.ndjson", [seedRow("Parent"), seedRow("Child", { parent_key: "Parent" })]),
    );
    await store.outbox.record(newRequests(seed.rows()), "b", seed.file, now);
    await store.outbox.takeReady(now);
    // The first write of a created scenario fails, as on a full disk or a held lock.
    const fault = await failInserts(store, "scenarios", 1);
    const clients = createClients(cfg, logger);
    const deps = { outbox: store.outbox, clientFor: clients.clientFor, acquireSlot: async () => {}, logger };
    try {
      expect(await createScenarioFor(deps, "Parent")).toMatchObject({
        status: "created",
        ready: ["Child"],
      });
      expect(await createScenarioFor(deps, "Child")).toMatchObject({ status: "created" });
    } finally {
      await clients.close();
    }
    // The failed insert, then the parent's again and the child's.
    expect(await fault.tried()).toBe(3);
    const parent = (await t.request("Parent")) as {
      status: string;
      scenario_id: number | null;
      attempts: number;
    };
    expect(parent).toMatchObject({ status: "created", attempts: 1 });
    const sim = await t.scenarios();
    expect(sim).toHaveLength(2);
    expect(sim.find((s) => s.scenario_name === "Child")?.parent_id).toBe(parent.scenario_id);
  });

  it("finds a create that timed out but was committed anyway to exist on the next attempt", async () => {
    h = await startPushHarness(kind, { sim: { faults: { latencyMs: 1500, namesNotUnique: 0 } } });
    const t = h;
    const cfg = parseConfig(
      simConfig(t.sim, t.database, t.prefix, {
        http: { timeoutMs: 200, maxAttempts: 2, maxRequestsPerSecond: 1000 },
      }),
      "test config",
    );
    const store = await t.store();
    const now = new Date().toISOString();
    const seed = await loadSeed(cfg, t.seed("slow.ndjson", [seedRow("Slow one")]));
    await store.outbox.record(newRequests(seed.rows()), "b", seed.file, now);
    await store.outbox.takeReady(now);
    const clients = createClients(cfg, logger);
    const deps = { outbox: store.outbox, clientFor: clients.clientFor, acquireSlot: async () => {}, logger };
    try {
      expect(await createScenarioFor(deps, "Slow one")).toMatchObject({
        status: "retry",
        code: "TIMEOUT",
      });
      expect(await t.request("Slow one")).toMatchObject({ status: "queued", in_flight: 1, attempts: 1 });
      // The service was only slow: it commits after 1.5 s, long after the client gave up.
      while ((await t.scenarios()).length < 1) await new Promise((r) => setTimeout(r, 20));
      await t.setFaults({ latencyMs: 0 });
      expect(await createScenarioFor(deps, "Slow one")).toMatchObject({ status: "exists" });
    } finally {
      await clients.close();
    }
    expect(await t.request("Slow one")).toMatchObject({
      status: "exists",
      attempts: 2,
      uncertain: 1,
      in_flight: 0,
    });
    expect(await t.scenarios()).toHaveLength(1);
  });
});
