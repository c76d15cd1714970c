/** Alerts: which change of health sends what (pure), and the webhook's retries (a real HTTP server). */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertsFor, healthKey } from "../../src/alerts/transitions.js";
import { WebhookSender, webhookTarget } from "../../src/alerts/webhook.js";
import type { Logger } from "../../src/log.js";
import { Secret } from "../../src/secret.js";

describe("alertsFor", () => {
  it.each([
    [null, { failing: false, stale: false }, []],
    [null, { failing: true, stale: false }, ["sync_failed"]],
    ["ok", { failing: true, stale: false }, ["sync_failed"]],
    ["failing", { failing: true, stale: false }, []],
    ["failing", { failing: true, stale: true }, ["company_stale"]],
    ["ok", { failing: true, stale: true }, ["sync_failed", "company_stale"]],
    ["failing+stale", { failing: false, stale: false }, ["company_recovered"]],
    ["stale", { failing: false, stale: false }, ["company_recovered"]],
    ["stale", { failing: false, stale: true }, []],
    ["failing+stale", { failing: false, stale: true }, []],
  ])("from %j to %j sends %j", (before, now, events) => {
    expect(alertsFor(before, now)).toEqual(events);
  });

  it("keys a health the same way it parses it back", () => {
    for (const h of [
      { failing: false, stale: false },
      { failing: true, stale: false },
      { failing: false, stale: true },
      { failing: true, stale: true },
    ])
      expect(alertsFor(healthKey(h), h)).toEqual([]);
  });
});

describe("WebhookSender", () => {
  let server: Server;
  let url: string;
  const bodies: string[] = [];
  let failFirst = 0;
  const seen: { url: string; authorization: string | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        if (failFirst-- > 0) {
          res.writeHead(503).end();
          return;
        }
        bodies.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    url = `http://127.0.0.1:${address.port}/hooks/SECRET-PATH`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** A logger that keeps every line with its child bindings, as pino would write them. */
  function recordingLogger() {
    const lines: string[] = [];
    const make = (bindings: object): Logger => {
      const log = (level: string) => (fields: unknown, msg?: string) =>
        lines.push(`${level} ${JSON.stringify({ ...bindings, ...(fields as object) })} ${msg ?? ""}`);
      return {
        info: log("info"),
        warn: log("warn"),
        error: log("error"),
        child: (more: object) => make({ ...bindings, ...more }),
      } as unknown as Logger;
    };
    return { lines, logger: make({}) };
  }

  it("retries a failed delivery with backoff, sends each alert once, in order, and never logs the URL", async () => {
    failFirst = 2;
    bodies.length = 0;
    const waits: number[] = [];
    const { lines, logger } = recordingLogger();
    const sender = new WebhookSender({
      url: new Secret(url),
      timeoutMs: 2000,
      logger,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    sender.send({ event: "sync_failed", company_id: 1 });
    sender.send({ event: "company_recovered", company_id: 1 });
    await sender.flush();
    expect(bodies.map((b) => (JSON.parse(b) as { event: string }).event)).toEqual([
      "sync_failed",
      "company_recovered",
    ]);
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThan(waits[0] as number);
    expect(lines.join("\n")).toContain("HTTP 503");
    expect(lines.join("\n")).not.toContain("SECRET-PATH");
  });

  it("gives up after its attempts, saying so, without throwing", async () => {
    failFirst = 100;
    const { lines, logger } = recordingLogger();
    const sender = new WebhookSender({
      url: new Secret(url),
      timeoutMs: 2000,
      logger,
      attempts: 3,
      sleep: async () => {},
    });
    sender.send({ event: "company_stale", company_id: 2 });
    await sender.flush();
    expect(lines.filter((l) => l.startsWith("error")).join("")).toContain("alert not delivered; giving up");
    failFirst = 0;
  });

  it("sends a URL's user and password as a Basic Authorization header, and they reach no log line", async () => {
    const password = "p@ss:w0rd-LEAKME";
    const withCreds = url.replace("http://", `http://hook-user:${encodeURIComponent(password)}@`);
    failFirst = 2; // two failures: the warn lines are logged, as a failure's are in production
    seen.length = 0;
    const { lines, logger } = recordingLogger();
    const sender = new WebhookSender({
      url: new Secret(withCreds),
      timeoutMs: 2000,
      logger,
      sleep: async () => {},
    });
    sender.send({ event: "sync_failed", company_id: 1 });
    await sender.flush();
    expect(seen).toHaveLength(3);
    const expected = `Basic ${Buffer.from(`hook-user:${password}`).toString("base64")}`;
    for (const request of seen) {
      expect(request.authorization).toBe(expected);
      expect(request.url).toBe("/hooks/SECRET-PATH");
    }
    const logged = lines.join("\n");
    expect(logged).toContain("HTTP 503");
    expect(logged).toContain(new URL(url).origin);
    for (const leak of [
      "LEAKME",
      encodeURIComponent(password),
      "hook-user",
      expected.slice(6),
      "SECRET-PATH",
    ])
      expect(logged).not.toContain(leak);
  });

  it("says why an unreachable webhook failed without its credentials or path", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { lines, logger } = recordingLogger();
    const sender = new WebhookSender({
      url: new Secret(`http://u:LEAKME-pw@127.0.0.1:${port}/T0KEN`),
      timeoutMs: 2000,
      logger,
      attempts: 2,
      sleep: async () => {},
    });
    sender.send({ event: "company_stale", company_id: 2 });
    await sender.flush();
    const logged = lines.join("\n");
    expect(logged).toContain("ECONNREFUSED");
    expect(logged).not.toMatch(/LEAKME|T0KEN|u:/);
  });

  it("keeps the target printable: its URL and header are Secrets", () => {
    const target = webhookTarget(new Secret("https://a%40b:c%3Ad@hooks.example.com/x?t=1"));
    expect(target.url.reveal()).toBe("https://hooks.example.com/x?t=1");
    expect(target.authorization?.reveal()).toBe(`Basic ${Buffer.from("a@b:c:d").toString("base64")}`);
    expect(JSON.stringify(target)).not.toMatch(/hooks\.example\.com\/x|YUBi/);
    expect(webhookTarget(new Secret("https://hooks.example.com/x")).authorization).toBeNull();
  });
});
