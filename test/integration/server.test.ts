/** The daemon's HTTP server over real HTTP, with real BullMQ queues on the real Redis. */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { type HomeView, type RunningServer, ServerListenError } from "../../src/server/index.js";
import {
  basic,
  PASSWORD,
  startTestServer,
  type TestQueues,
  testQueues,
  USER,
  withAuth,
} from "./server-harness.js";

let tq: TestQueues;
const servers: RunningServer[] = [];

async function start(...args: Parameters<typeof startTestServer>): Promise<RunningServer> {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}

beforeAll(async () => {
  tq = await testQueues(["sync", "push"]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await tq.cleanup();
});

describe("health and readiness", () => {
  it("answers /healthz with ok, without credentials even when auth is set", async () => {
    const s = await start(tq.queues, withAuth);
    const res = await fetch(`${s.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz 200 with the readiness as JSON when it is ok", async () => {
    const ready = {
      ok: true,
      checks: { redis: { ok: true }, database: { ok: true } },
      companies: [{ id: 1 }],
    };
    const s = await start(tq.queues, { ...withAuth, readiness: async () => ready });
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(ready);
  });

  it("answers /readyz 503 with the failing checks in the body", async () => {
    const notReady = { ok: false, checks: { redis: { ok: false, detail: "ECONNREFUSED" } } };
    const s = await start(tq.queues, { readiness: async () => notReady });
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(notReady);
  });

  it("answers /readyz 503 naming the failure when readiness() throws", async () => {
    const s = await start(tq.queues, {
      readiness: async () => {
        throw new Error("database is locked");
      },
    });
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      ok: false,
      checks: { readiness: { ok: false, detail: "readiness check failed: database is locked" } },
    });
  });

  it("answers /readyz 503 when readiness() does not answer in time", async () => {
    const s = await start(tq.queues, { readiness: () => new Promise(() => {}), readinessTimeoutMs: 50 });
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ok: boolean; checks: Record<string, { detail?: string }> };
    expect(body.ok).toBe(false);
    expect(body.checks.readiness?.detail).toBe("readiness check did not answer within 50 ms");
  });
});

describe("metrics", () => {
  it("serves the Prometheus text with the registry's content type, queue counts read from Redis", async () => {
    await tq.queues[0]!.add("sync-company", { companyId: 1 });
    const s = await start(tq.queues);
    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(text).toContain("# HELP tas_sync_sync_runs_total ");
    expect(text).toContain('tas_sync_queue_jobs{queue="sync",state="waiting"} 1');
    expect(text).toContain('tas_sync_queue_jobs{queue="push",state="waiting"} 0');
  });
});

const homeView = async (): Promise<HomeView> => ({
  generatedAt: "2026-11-27T12:00:00.000Z",
  companies: [
    {
      companyId: 5251,
      every: "15m",
      staleAfter: "45m",
      lastRun: {
        id: 1,
        status: "succeeded",
        startedAt: "2026-11-27T11:59:00.000Z",
        finishedAt: null,
        error: null,
      },
      lastSuccessAt: "2026-11-27T11:59:00.000Z",
      stale: false,
      failing: false,
      rejectedNow: 0,
      openChanges: 0,
      nextRunAt: null,
    },
  ],
  outbox: { counts: { created: 2 }, held: [] },
  problems: [],
});

describe("basic auth", () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await start(tq.queues, { ...withAuth, home: homeView });
  });

  it.each([
    ["no credentials", {}],
    ["a wrong password", basic(USER, "wrong")],
    ["a wrong user", basic("admin", PASSWORD)],
    ["a malformed header", { Authorization: "Basic not-base64!" }],
    ["another scheme", { Authorization: `Bearer ${PASSWORD}` }],
  ])("refuses /metrics, /queues and the board's API with %s", async (_, headers: Record<string, string>) => {
    for (const path of ["/", "/metrics", "/queues", "/queues/api/queues", "/queues/static/favicon.ico"]) {
      const res = await fetch(`${s.url}${path}`, { headers });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate"), path).toBe('Basic realm="tas-sync"');
      const body = await res.text();
      expect(body, path).not.toContain("tas_sync");
      expect(body, path).not.toContain("5251");
    }
  });

  it("serves /metrics and /queues with the right credentials", async () => {
    const headers = basic(USER, PASSWORD);
    const metrics = await fetch(`${s.url}/metrics`, { headers });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("tas_sync_queue_jobs");
    const page = await fetch(`${s.url}/queues`, { headers });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  it("serves the home page at / with the right credentials, no script allowed, not cached", async () => {
    const res = await fetch(`${s.url}/`, { headers: basic(USER, PASSWORD) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toContain('<tr data-company="5251">');
  });

  it("asks no credentials for /, /metrics and /queues when none are configured", async () => {
    const open = await start(tq.queues, { home: homeView });
    expect((await fetch(`${open.url}/`)).status).toBe(200);
    expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${open.url}/queues`)).status).toBe(200);
  });
});

describe("the home page", () => {
  it("answers 503 with the reason, escaped, when the daemon's state cannot be read", async () => {
    const s = await start(tq.queues, {
      home: async () => {
        throw new Error("database <b>gone</b>");
      },
    });
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("could not be read: database &lt;b&gt;gone&lt;/b&gt;");
  });

  it("answers 503 when the state does not come in time", async () => {
    const s = await start(tq.queues, { home: () => new Promise(() => {}), readinessTimeoutMs: 100 });
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("did not answer within 100 ms");
  });

  it("is not served by a server given no home view", async () => {
    const s = await start(tq.queues);
    expect((await fetch(`${s.url}/`)).status).toBe(404);
  });
});

describe("Bull Board", () => {
  it("lists the queues given, and serves its static assets", async () => {
    const s = await start(tq.queues, withAuth);
    const headers = basic(USER, PASSWORD);
    const api = await fetch(`${s.url}/queues/api/queues`, { headers });
    expect(api.status).toBe(200);
    const { queues } = (await api.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(queues.map((q) => q.name).sort()).toEqual(["push", "sync"]);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);

    const html = await (await fetch(`${s.url}/queues`, { headers })).text();
    // The page names its assets relative to <base href>, which must be the board's path.
    expect(html).toContain('<base href="/queues/" />');
    const script = html.match(/src="(static\/js\/main\.[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${s.url}/queues/${script}`, { headers });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
  });

  it("refuses to pause a queue when read-only, and pauses it when writable", async () => {
    const sync = tq.queues[0]!;
    const readOnly = await start(tq.queues);
    const refused = await fetch(`${readOnly.url}/queues/api/queues/sync/pause`, { method: "PUT" });
    expect(refused.status).toBe(405);
    expect(await sync.isPaused()).toBe(false);

    const writable = await start(tq.queues, { dashboardWritable: true });
    const paused = await fetch(`${writable.url}/queues/api/queues/sync/pause`, { method: "PUT" });
    expect(paused.ok).toBe(true);
    expect(await sync.isPaused()).toBe(true);
    await sync.resume();
  });
});

describe("listening and closing", () => {
  it("fails with a one-line error naming host:port when the address is in use", async () => {
    const s = await start(tq.queues);
    const err = await startTestServer(tq.queues, { port: s.port }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerListenError);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      `cannot listen on 127.0.0.1:${s.port}: the address is already in use (another tas-sync daemon, or set server.port)`,
    );
  });

  it.each([
    [70_000, "127.0.0.1:70000: the port must be an integer from 0 to 65535"],
    [1.5, "127.0.0.1:1.5: the port must be an integer from 0 to 65535"],
  ])("refuses port %s", async (port, message) => {
    await expect(startTestServer(tq.queues, { port })).rejects.toThrow(`cannot listen on ${message}`);
  });

  it("fails naming host:port when the host is not this machine's", async () => {
    const err = await startTestServer(tq.queues, { host: "192.0.2.1", port: 9464 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerListenError);
    expect((err as Error).message).toMatch(/^cannot listen on 192\.0\.2\.1:9464: /);
    expect((err as Error).message).not.toContain("\n");
  });

  it("closes while a request is still open, and stops answering", async () => {
    let asked!: () => void;
    const readinessAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const s = await startTestServer(tq.queues, {
      readiness: () => {
        asked();
        return new Promise(() => {}); // hangs: only closing the socket ends this request
      },
      readinessTimeoutMs: 600_000,
    });
    await fetch(`${s.url}/healthz`); // leaves an idle keep-alive socket
    const pending = fetch(`${s.url}/readyz`).then(
      () => "answered",
      () => "cut",
    );
    await readinessAsked;
    await s.close();
    expect(await pending).toBe("cut");
    expect(await portIsFree(s.port)).toBe(true);
  });
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
