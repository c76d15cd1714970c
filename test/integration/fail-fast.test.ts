/**
 * A service that cannot be reached fails a sync at once and says so once: connection refused,
 * an unknown host and a failed TLS handshake are not retried like a 5xx; a token's retries are
 * not nested inside each request's; a 404 on the plan list says where the REST root belongs.
 * Default settings (http.maxAttempts 5), a real SQLite file, real sockets; the transport's waits
 * run on an injected clock, so "within 5 s" is the sum of the waits it asked for, not wall time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runSyncCommand } from "../../src/commands/sync.js";
import { parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";

let dir: string;
let databases = 0;
const servers: Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-fail-fast-"));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok))));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}

/** A plain-HTTP server; counts requests by path and answers with `answer`. */
async function httpServer(answer: (path: string) => { status: number; body: string }) {
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? "").split("?")[0] ?? "";
    seen.set(path, (seen.get(path) ?? 0) + 1);
    const { status, body } = answer(path);
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const TOKEN = JSON.stringify({ access_token: "t", token_type: "bearer", expires_in: 3600 });

function config(baseUrl: string, tokenUrl: string, companies = [5251]) {
  return parseConfig(
    {
      baseUrl,
      auth: { tokenUrl, clientId: "c", clientSecret: "s", username: "u", password: "p" },
      companies: companies.map((id) => ({ id, reportIds: [132, 133, 134] })),
      database: join(dir, `db-${++databases}.db`),
    },
    "(test)",
    {},
  );
}

/** Runs `tas-sync sync` as the CLI does, at the default log level, on a clock that only waits advance. */
async function sync(cfg: ReturnType<typeof config>) {
  const out: string[] = [];
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  let waited = 0;
  const start = Date.parse("2026-01-01T00:00:00Z");
  const code = await runSyncCommand(cfg, {
    logger: createLogger({ level: cfg.logLevel, pretty: false, destination: sink }),
    out: (l) => out.push(l),
    progress: null,
    clock: {
      sleep: async (ms) => {
        waited += ms;
      },
      now: () => start + waited,
    },
  });
  // What the clock advanced by: the rate cap's spacing and any backoff.
  return { code, out, logLines, waited };
}

/** Retries the transport announced (the first of each call is logged at the default level). */
const retries = (r: { logLines: string[] }) => r.logLines.filter((l) => l.includes("retrying")).length;

describe("a sync against a service that cannot be reached", () => {
  it("fails at once with one line per company naming host:port and auth.tokenUrl when nothing listens", async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}/Testinium.RestApi`;
    const r = await sync(config(base, `${base}/oauth/token`, [5251, 5252]));
    expect(r.code).toBe(1);
    expect(r.waited).toBeLessThan(5000);
    expect(retries(r)).toBe(0);
    // Per company: its summary line and one reason.
    expect(r.out).toHaveLength(4);
    for (const [i, id] of [5251, 5252].entries()) {
      expect(r.out[2 * i]).toMatch(new RegExp(`^company ${id}: failed in`));
      expect(r.out[2 * i + 1]).toBe(
        `  ! token CONNECTION_FAILED: cannot connect to 127.0.0.1:${port} (ECONNREFUSED); check auth.tokenUrl`,
      );
    }
    expect(r.logLines.length).toBeLessThanOrEqual(2 * 5);
    expect(r.logLines.filter((l) => l.includes('"companyId":5251')).length).toBeLessThanOrEqual(5);
  });

  it("names baseUrl when only the service's address is wrong, after one token request", async () => {
    const port = await closedPort();
    const auth = await httpServer(() => ({ status: 200, body: TOKEN }));
    const r = await sync(config(`http://127.0.0.1:${port}/Testinium.RestApi`, `${auth.origin}/oauth/token`));
    expect(r.code).toBe(1);
    expect(r.waited).toBeLessThan(5000);
    expect(retries(r)).toBe(0);
    expect(r.out).toHaveLength(2);
    expect(r.out[1]).toBe(
      `  ! getScheduledReport CONNECTION_FAILED: cannot connect to 127.0.0.1:${port} (ECONNREFUSED); check baseUrl`,
    );
    expect(auth.seen.get("/oauth/token")).toBe(1);
    expect(r.logLines.length).toBeLessThanOrEqual(5);
  });

  it("names an unknown host and fails without retrying", async () => {
    const auth = await httpServer(() => ({ status: 200, body: TOKEN }));
    const r = await sync(
      config("https://no-such-host.invalid/Testinium.RestApi", `${auth.origin}/oauth/token`),
    );
    expect(r.code).toBe(1);
    expect(r.waited).toBeLessThan(5000);
    expect(retries(r)).toBe(0);
    expect(r.out).toHaveLength(2);
    expect(r.out[1]).toMatch(
      /^ {2}! getScheduledReport CONNECTION_FAILED: cannot connect to no-such-host\.invalid:443 \((ENOTFOUND|EAI_AGAIN)\)/,
    );
    expect(r.logLines.length).toBeLessThanOrEqual(5);
  });

  it("fails a TLS handshake at once (https spoken to a plain-HTTP port)", async () => {
    const plain = await httpServer(() => ({ status: 200, body: TOKEN }));
    const port = new URL(plain.origin).port;
    const r = await sync(
      config(`https://127.0.0.1:${port}/Testinium.RestApi`, `${plain.origin}/oauth/token`),
    );
    expect(r.code).toBe(1);
    expect(r.waited).toBeLessThan(5000);
    expect(retries(r)).toBe(0);
    expect(r.out).toHaveLength(2);
    expect(r.out[1]).toMatch(
      new RegExp(
        `^ {2}! getScheduledReport TLS_FAILED: TLS with 127\\.0\\.0\\.1:${port} failed \\(.+\\); check baseUrl$`,
      ),
    );
    // The token came over plain HTTP; nothing reached the plan or report paths.
    expect([...plain.seen.keys()]).toEqual(["/oauth/token"]);
    expect(r.logLines.length).toBeLessThanOrEqual(5);
  });
});

describe("one retry budget per operation", () => {
  it("spends the token's attempts once, not once per attempt of each request", async () => {
    const service = await httpServer((path) =>
      path === "/oauth/token" ? { status: 503, body: "{}" } : { status: 200, body: "[]" },
    );
    const r = await sync(config(service.origin, `${service.origin}/oauth/token`));
    expect(r.code).toBe(1);
    // http.maxAttempts (5) token requests in all: before, 5 per attempt of each of 4 requests (100).
    expect(service.seen.get("/oauth/token")).toBe(5);
    expect([...service.seen.keys()]).toEqual(["/oauth/token"]);
    expect(r.out).toHaveLength(2);
    expect(r.out[1]).toMatch(/^ {2}! token: HTTP 503 /);
    // Four waits of backoff (250 ms doubling, jittered): well within 5 s.
    expect(r.waited).toBeGreaterThan(0);
    expect(r.waited).toBeLessThan(5000);
    // Started, one retry warning, failed.
    expect(r.logLines.length).toBeLessThanOrEqual(5);
    expect(r.logLines.filter((l) => l.includes("request failed; retrying"))).toHaveLength(1);
  });
});

describe("a plan list at a wrong path", () => {
  it("says which URL was asked and that baseUrl must include the REST root", async () => {
    const service = await httpServer((path) =>
      path === "/Testinium.RestApi/oauth/token"
        ? { status: 200, body: TOKEN }
        : { status: 404, body: JSON.stringify({ error: "NOT_FOUND", message: `No such endpoint: ${path}` }) },
    );
    const cfg = config(service.origin, `${service.origin}/Testinium.RestApi/oauth/token`);
    const r = await sync(cfg);
    expect(r.code).toBe(1);
    expect(r.waited).toBeLessThan(5000);
    expect(retries(r)).toBe(0);
    const plans = r.out.filter((l) => l.startsWith("  ! plans:"));
    expect(plans).toEqual([
      `  ! plans: listPlans: HTTP 404 NOT_FOUND: No such endpoint: /api/plans; asked GET ${service.origin}/api/plans: baseUrl must include the service's REST root (e.g. ${service.origin}/Testinium.RestApi)`,
    ]);
    expect(r.logLines.length).toBeLessThanOrEqual(5);
  });
});
