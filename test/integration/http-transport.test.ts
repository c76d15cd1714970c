/**
 * HttpTransport.requestText against a real HTTP server that misbehaves in ways the simulator
 * does not: an error status whose body breaks off midway.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidRequestError } from "../../src/api/errors.js";
import { HttpTransport, type RequestSpec } from "../../src/api/http.js";
import { createLogger } from "../../src/log.js";

/** Answers each request with the next of `replies`: a status and a body cut after a few bytes, or whole. */
type Reply = { status: number; headers?: Record<string, string>; body: string; cut?: boolean };

let server: Server;
let replies: Reply[];
let seen: number;
let base: string;
let http: HttpTransport;

beforeEach(async () => {
  replies = [];
  seen = 0;
  server = createServer((req, res) => {
    req.resume();
    const reply = replies[seen++] ?? { status: 500, body: "no reply left" };
    res.writeHead(reply.status, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(reply.body)),
      ...reply.headers,
    });
    if (!reply.cut) {
      res.end(reply.body);
      return;
    }
    // Headers and the first bytes, then the connection is cut.
    res.write(reply.body.slice(0, 5), () => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = new HttpTransport({
    timeoutMs: 2000,
    maxAttempts: 1,
    maxRequestsPerSecond: 1000,
    connections: 2,
    logger: createLogger({ level: "silent", pretty: false }),
    sleep: async () => {},
  });
});
afterEach(async () => {
  await http.close();
  await new Promise((resolve) => server.close(resolve));
});

const create = (): RequestSpec => ({
  operation: "createScenario",
  method: "POST",
  url: new URL(`${base}/api/projects/1/scenarios`),
  headers: { "content-type": "application/json" },
  body: "{}",
  idempotent: false,
});

describe("HttpTransport.requestText", () => {
  it("waits out a 429 whose body breaks off, and sends again", async () => {
    replies = [
      { status: 429, headers: { "retry-after": "0" }, body: '{"error":"TOO_MANY_REQUESTS"}', cut: true },
      { status: 200, body: '{"id":7}' },
    ];
    const res = await http.requestText(create());
    expect(res).toMatchObject({ statusCode: 200, text: '{"id":7}' });
    expect(seen).toBe(2);
  });

  it("reports a 400 whose body breaks off as the 400 it is, not as an unknown outcome", async () => {
    replies = [{ status: 400, body: '{"error":"INVALID_SCENARIO_NAME","message":"taken"}', cut: true }];
    const err = await http.requestText(create()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err).toMatchObject({ status: 400 });
    expect(err).not.toHaveProperty("outcomeUnknown", true);
  });

  it("leaves the outcome unknown when a 2xx body breaks off", async () => {
    replies = [{ status: 200, body: '{"id":7,"scenario_name":"x"}', cut: true }];
    const err = await http.requestText(create()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "CONNECTION_RESET", outcomeUnknown: true });
  });

  it("waits as long as a 429's Retry-After says", async () => {
    replies = [
      { status: 429, headers: { "retry-after": "7" }, body: "{}" },
      { status: 200, body: "{}" },
    ];
    const waits: number[] = [];
    const timed = new HttpTransport({
      timeoutMs: 2000,
      maxAttempts: 1,
      maxRequestsPerSecond: 1000,
      connections: 1,
      logger: createLogger({ level: "silent", pretty: false }),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    try {
      await expect(timed.requestText(create())).resolves.toMatchObject({ statusCode: 200 });
      expect(waits).toEqual([7000]);
    } finally {
      await timed.close();
    }
  });
});
