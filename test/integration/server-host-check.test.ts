/**
 * The DNS-rebinding defence over real HTTP: without credentials the server answers only a Host
 * it is (the bound address, localhost, server.allowedHosts); a page on evil.example that
 * resolves to 127.0.0.1 can neither read /metrics nor drive a writable board.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/index.js";
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

/** A request to 127.0.0.1:port that says the Host given (none: no Host header at all). */
function send(
  port: number,
  path: string,
  host: string | null,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        setHost: false,
        headers: { ...(host === null ? {} : { host }), ...opts.headers },
      },
      (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("without credentials", () => {
  it.each(["/metrics", "/queues", "/queues/api/queues", "/readyz"])(
    "refuses %s with 421 for a Host that is not this server, saying which key to set",
    async (path) => {
      const s = await start(tq.queues);
      const res = await send(s.port, path, `evil.example:${s.port}`);
      expect(res.status).toBe(421);
      expect(res.body).toBe(
        `Host "evil.example:${s.port}" is not served here (DNS-rebinding defence): add the name to server.allowedHosts, or set server.username and server.password\n`,
      );
    },
  );

  it("refuses a request without a Host header (Node's HTTP server already answers 400)", async () => {
    const s = await start(tq.queues);
    const res = await send(s.port, "/metrics", null);
    expect([400, 421]).toContain(res.status);
    expect(res.body).not.toContain("# HELP");
  });

  it.each(["127.0.0.1", "localhost", "LOCALHOST", "127.0.0.1:PORT", "localhost:PORT", "[::1]:PORT"])(
    "serves Host %s",
    async (host) => {
      const s = await start(tq.queues);
      const res = await send(s.port, "/metrics", host.replace("PORT", String(s.port)));
      expect(res.status).toBe(200);
      expect(res.body).toContain("# HELP");
    },
  );

  it("serves the names of server.allowedHosts (any case, a trailing dot) and no others", async () => {
    const s = await start(tq.queues, { allowedHosts: ["tas.internal"] });
    expect((await send(s.port, "/metrics", "tas.internal:9464")).status).toBe(200);
    expect((await send(s.port, "/metrics", "TAS.Internal.")).status).toBe(200);
    expect((await send(s.port, "/metrics", "tas.internal.evil.example")).status).toBe(421);
  });

  it("answers /healthz whatever the Host: it shows nothing", async () => {
    const s = await start(tq.queues);
    expect((await send(s.port, "/healthz", "evil.example")).status).toBe(200);
  });

  it("does not let a rebinding page pause a queue through a writable board; the right Host does", async () => {
    const sync = tq.queues[0]!;
    const s = await start(tq.queues, { dashboardWritable: true });
    const evil = await send(s.port, "/queues/api/queues/sync/pause", "evil.example", { method: "PUT" });
    expect(evil.status).toBe(421);
    expect(await sync.isPaused()).toBe(false);
    const own = await send(s.port, "/queues/api/queues/sync/pause", `127.0.0.1:${s.port}`, { method: "PUT" });
    expect(own.status).toBe(200);
    expect(await sync.isPaused()).toBe(true);
    await sync.resume();
  });
});

describe("with credentials", () => {
  it("checks the credentials instead of the Host: a rebinding page has none", async () => {
    const s = await start(tq.queues, withAuth);
    expect((await send(s.port, "/metrics", "evil.example")).status).toBe(401);
    const res = await send(s.port, "/metrics", "metrics.example.com", { headers: basic(USER, PASSWORD) });
    expect(res.status).toBe(200);
  });
});
