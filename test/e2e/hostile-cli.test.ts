/**
 * `tas-sync sync` against a service that answers the plan list with endless or giant bodies:
 * the built CLI ends with one clear line per failure, an exit code, and no stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";
import {
  type HostileServer,
  planListParts,
  type StreamResult,
  startHostileServer,
  streamBody,
} from "../support/hostile-server.js";

const COMPANY = 5251;
const MiB = 1024 * 1024;
const GB = 1_000_000_000;

let server: HostileServer;
let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  server = await startHostileServer();
  dir = mkdtempSync(join(tmpdir(), "tas-sync-hostile-"));
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function config(name: string, maxResponseBytes: number): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      baseUrl: server.baseUrl,
      database: join(dir, `${name}.db`),
      logLevel: "warn",
      http: { timeoutMs: 20_000, maxAttempts: 3, maxRequestsPerSecond: 1000, maxResponseBytes },
      companies: [{ id: COMPANY, reportIds: [], auth: { token: "hostile-token" } }],
    }),
  );
  return path;
}

describe("tas-sync sync against hostile plan lists", () => {
  it.each([
    [
      "an endless list (1 GB, limit 8 MiB)",
      () => planListParts(COMPANY, GB),
      8 * MiB,
      "listPlans: HTTP 200 RESPONSE_TOO_LARGE: the plan list is larger than 8 MiB (http.maxResponseBytes)",
    ],
    [
      "one plan without end",
      () => ({
        head: `[{"id":1,"company_id":${COMPANY},"description":"`,
        piece: Buffer.alloc(64 * 1024, "d"),
        tail: '"}]',
        total: GB,
      }),
      1024 * MiB,
      "listPlans: HTTP 200 RECORD_TOO_LARGE: a plan record is larger than 16 MiB",
    ],
  ])("%s: one line, exit 1 (the company failed), no stack trace", async (name, parts, limit, line) => {
    const streams: Promise<StreamResult>[] = [];
    server.setHandler((_req, res) => {
      streams.push(streamBody(res, parts()));
    });
    const r = await cli(["sync", "--config", config(name.replace(/\W+/g, "-"), limit)]);
    expect(r.stdout).toContain(`  ! plans: ${line}`);
    expect(r.code).toBe(1);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/^\s+at /m);
    // Read once, stopped early, not retried.
    expect(streams).toHaveLength(1);
    const sent = await streams[0];
    expect(sent?.completed).toBe(false);
    expect(sent?.written).toBeLessThan(64 * MiB);
  });
});
