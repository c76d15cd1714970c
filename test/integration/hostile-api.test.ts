/**
 * Bodies a proxy, a misconfigured base URL or a broken service can send with status 200, over
 * real HTTP to the real client: each ends in one clear typed error, never a crash, never
 * unbounded buffering, and never a retry of something that would only happen again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { ResponseFormatError, ResponseTooLargeError } from "../../src/api/errors.js";
import { HttpTransport } from "../../src/api/http.js";
import { readReport } from "../../src/normalize/read.js";
import {
  type HostileServer,
  planListParts,
  type StreamResult,
  startHostileServer,
  streamBody,
} from "../support/hostile-server.js";
import { fastSleep, logger } from "./sync-harness.js";

const COMPANY = 5251;
const MiB = 1024 * 1024;
const GB = 1_000_000_000;
const PLANS = "/Testinium.RestApi/api/plans";

let server: HostileServer;
let http: HttpTransport;
beforeAll(async () => {
  server = await startHostileServer();
  http = new HttpTransport({
    timeoutMs: 20_000,
    maxAttempts: 3,
    maxRequestsPerSecond: 10_000,
    connections: 2,
    logger,
    sleep: fastSleep,
  });
});
afterAll(async () => {
  await http.close();
  await server.close();
});
afterEach(() => server.hits.clear());

function client(maxResponseBytes?: number): TasClient {
  return new TasClient({
    http,
    baseUrl: server.baseUrl,
    auth: new StaticTokenProvider("hostile-token"),
    companyId: COMPANY,
    maxAttempts: 3,
    logger,
    sleep: fastSleep,
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });
}

/** Runs streamPlans; returns the error it ended with (or null) and the records seen. */
async function streamPlans(c: TasClient) {
  let records = 0;
  let recordBytes = 0;
  let restarts = 0;
  try {
    await c.streamPlans({
      onRecord: (b) => {
        records++;
        recordBytes += b.length;
      },
      onRestart: () => restarts++,
    });
    return { error: null, records, recordBytes, restarts };
  } catch (error) {
    return { error, records, recordBytes, restarts };
  }
}

function answer(status: number, body: string, type = "application/json") {
  server.setHandler((_req, res) => {
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
}

/** A one-line message: what failed and why, no stack trace in it. */
function expectOneLine(err: unknown, pattern: RegExp): void {
  expect(err).toBeInstanceOf(ResponseFormatError);
  const message = (err as Error).message;
  expect(message).toMatch(pattern);
  expect(message).not.toMatch(/\n|\bat .+:\d+:\d+/);
}

describe("hostile plan-list bodies with status 200", () => {
  it.each([
    [
      "an HTML page",
      "<!DOCTYPE html><html><body>Sign in</body></html>",
      /NOT_A_JSON_ARRAY: expected a JSON array, found '<'/,
    ],
    [
      "truncated JSON",
      '[{"id":1,"company_id":5251},{"id":2,"comp',
      /NOT_A_JSON_ARRAY: the JSON array ended early/,
    ],
    ["null", "null", /NOT_A_JSON_ARRAY: expected a JSON array, found 'n'/],
    ["an object instead of an array", '{"plans":[]}', /NOT_A_JSON_ARRAY: expected a JSON array, found '\{'/],
    ["an empty body", "", /NOT_A_JSON_ARRAY: the JSON array ended early/],
  ])("%s: a ResponseFormatError, not retried", async (_what, body, message) => {
    answer(200, body, body.startsWith("<") ? "text/html" : "application/json");
    const r = await streamPlans(client());
    expectOneLine(r.error, message);
    expect((r.error as ResponseFormatError).status).toBe(200);
    expect(server.hits.get(PLANS)).toBe(1);
    expect(r.restarts).toBe(0);
  });
});

describe("hostile report bodies with status 200", () => {
  it.each([
    ["an HTML page", "<html><body>Maintenance</body></html>", /^invalid JSON: /],
    ["truncated JSON", '{"id": 132, "report_na', /^invalid JSON: /],
    ["null", "null", /^\(record\): /],
    ["an array instead of an object", "[]", /^\(record\): /],
  ])("%s: read as text, then rejected with a reason by readReport", async (_what, body, reason) => {
    answer(200, body);
    const text = await client().getScheduledReport(132);
    expect(text).toBe(body);
    const read = readReport(text, COMPANY);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.reason).toMatch(reason);
  });

  it("a report body past 16 MiB is refused while it arrives, not buffered whole", async () => {
    let result: Promise<StreamResult> | undefined;
    server.setHandler((_req, res) => {
      result = streamBody(res, {
        head: '{"id":132,"report_name":"',
        piece: Buffer.alloc(64 * 1024, "r"),
        tail: '"}',
        total: GB,
      });
    });
    const err = await client()
      .getScheduledReport(132)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expectOneLine(
      err,
      /getScheduledReport: HTTP 200 RESPONSE_TOO_LARGE: the response is larger than 16 MiB$/,
    );
    const sent = await result;
    expect(sent?.completed).toBe(false);
    expect(sent?.written).toBeLessThan(64 * MiB);
    expect(server.hits.get("/Testinium.RestApi/api/scheduled-reports/scheduled/132")).toBe(1);
  });
});

describe("a plan list that does not end", () => {
  it("stops once more than maxResponseBytes arrived, with RESPONSE_TOO_LARGE, and does not retry", async () => {
    const parts = planListParts(COMPANY, GB);
    let result: Promise<StreamResult> | undefined;
    server.setHandler((_req, res) => {
      result = streamBody(res, parts);
    });
    const r = await streamPlans(client(8 * MiB));
    expect(r.error).toBeInstanceOf(ResponseTooLargeError);
    expectOneLine(
      r.error,
      /^listPlans: HTTP 200 RESPONSE_TOO_LARGE: the plan list is larger than 8 MiB \(http\.maxResponseBytes\)$/,
    );
    expect((r.error as ResponseTooLargeError).retryable).toBe(false);
    // Records before the limit were handed over; the rest was never read.
    expect(r.records).toBeGreaterThan(1000);
    expect(r.recordBytes).toBeLessThanOrEqual(8 * MiB);
    const sent = await result;
    expect(sent?.completed).toBe(false);
    expect(sent?.written).toBeLessThan(64 * MiB);
    expect(server.hits.get(PLANS)).toBe(1);
    expect(r.restarts).toBe(0);
  });

  it("refuses a single plan larger than 16 MiB as RECORD_TOO_LARGE, without buffering the rest", async () => {
    let result: Promise<StreamResult> | undefined;
    server.setHandler((_req, res) => {
      result = streamBody(res, {
        head: `[{"id":1,"company_id":${COMPANY}},{"id":2,"company_id":${COMPANY},"description":"`,
        piece: Buffer.alloc(64 * 1024, "d"),
        tail: '"}]',
        total: GB,
      });
    });
    const r = await streamPlans(client());
    expect(r.error).toBeInstanceOf(ResponseTooLargeError);
    expectOneLine(r.error, /^listPlans: HTTP 200 RECORD_TOO_LARGE: a plan record is larger than 16 MiB$/);
    expect((r.error as ResponseTooLargeError).code).toBe("RECORD_TOO_LARGE");
    expect(r.records).toBe(1);
    const sent = await result;
    expect(sent?.completed).toBe(false);
    expect(sent?.written).toBeLessThan(64 * MiB);
    expect(server.hits.get(PLANS)).toBe(1);
  });

  it("streams a whole 1 GB plan list with memory that stays far below its size", async () => {
    const parts = planListParts(COMPANY, GB);
    let result: Promise<StreamResult> | undefined;
    server.setHandler((_req, res) => {
      result = streamBody(res, parts);
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    let r: Awaited<ReturnType<typeof streamPlans>>;
    try {
      r = await streamPlans(client());
    } finally {
      clearInterval(sampler);
    }
    expect(r.error).toBeNull();
    const sent = await result;
    expect(sent?.completed).toBe(true);
    expect(sent?.written).toBeGreaterThan(0.99 * GB);
    const pieces = Math.floor((GB - 1 - parts.tail.length) / parts.piece.length);
    expect(r.records).toBe(pieces * parts.perPiece + 1);
    // Client and server share this process: both fit, with room for lazy garbage collection.
    expect(peak - before).toBeLessThan(200 * MiB);
  });
});
