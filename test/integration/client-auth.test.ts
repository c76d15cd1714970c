/**
 * The bearer token is asked for right before each send, and a 401 renews it: twice at most,
 * then the refusal stands. Against a small HTTP server of the test that refuses tokens as told.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { UnauthorizedError } from "../../src/api/errors.js";
import { HttpTransport } from "../../src/api/http.js";
import { createLogger } from "../../src/log.js";

const logger = createLogger({ level: "silent", pretty: false });
let server: Server;
let base: string;
/** Tokens the server accepts; every request's token, in order. */
const accepted = new Set<string>();
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    seen.push(token);
    if (!accepted.has(token)) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"UNAUTHORIZED"}');
      return;
    }
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ id: 7, report_name: "r" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  base = `http://127.0.0.1:${address.port}/R`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

/** A renewable provider handing out token-1, token-2, ... and recording invalidations. */
function provider() {
  let n = 0;
  let current: string | null = null;
  const invalidated: string[] = [];
  const p: TokenProvider & { invalidated: string[]; issued: () => number } = {
    renewable: true,
    refused: "the service refused the test's token",
    async token() {
      current ??= `token-${++n}`;
      return current;
    },
    invalidate(token) {
      invalidated.push(token);
      if (current === token) current = null;
    },
    invalidated,
    issued: () => n,
  };
  return p;
}

function client(auth: TokenProvider) {
  const http = new HttpTransport({
    timeoutMs: 2000,
    maxAttempts: 1,
    maxRequestsPerSecond: 1000,
    connections: 2,
    logger,
  });
  return { http, client: new TasClient({ http, baseUrl: base, auth, companyId: 1, maxAttempts: 1, logger }) };
}

describe("TasClient and refused tokens", () => {
  it("renews a refused token and succeeds with the new one", async () => {
    seen.length = 0;
    accepted.clear();
    accepted.add("token-2");
    const auth = provider();
    const { http, client: c } = client(auth);
    await expect(c.getScheduledReport(7)).resolves.toContain('"id":7');
    expect(seen).toEqual(["token-1", "token-2"]);
    expect(auth.invalidated).toEqual(["token-1"]);
    await http.close();
  });

  it("gives up after two renewals that are refused too: the refusal stands", async () => {
    seen.length = 0;
    accepted.clear();
    const auth = provider();
    const { http, client: c } = client(auth);
    await expect(c.getScheduledReport(7)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen).toEqual(["token-1", "token-2", "token-3"]);
    expect(auth.issued()).toBe(3);
    await http.close();
  });

  it("asks for the token after the caller's wait, not before it", async () => {
    seen.length = 0;
    accepted.clear();
    accepted.add("token-2");
    const auth = provider();
    const { http, client: c } = client(auth);
    // The first token expires while the request waits for its slot (as in a long rate-limit wait).
    const beforeSend = async () => {
      const t = await auth.token();
      if (t === "token-1") auth.invalidate(t);
    };
    const body = JSON.stringify({ project_id: 1, scenario_name: "x", source_file: "x.java" });
    expect((await c.createScenario(1, body, beforeSend)).scenario.id).toBe(7);
    expect(seen).toEqual(["token-2"]);
    await http.close();
  });
});
