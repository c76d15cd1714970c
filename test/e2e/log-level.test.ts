/**
 * Which log level a command runs at: --log-level, else TAS_LOG_LEVEL, else the config's
 * logLevel, else info; and what debug adds (the sync's phases, each create of a push).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt } from "../support/built-cli.js";

let sim: RunningSimulator;
let dir: string;
let n = 0;

beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, plans: 2, reports: 1 });
  dir = mkdtempSync(join(tmpdir(), "tas-log-level-"));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A config of its own (own database), with the given logLevel or none. */
function config(logLevel?: string): string {
  const path = join(dir, `c${++n}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      baseUrl: sim.baseUrl,
      database: join(dir, `d${n}.db`),
      ...(logLevel ? { logLevel } : {}),
      companies: [{ id: 5251, reportIds: [132], auth: { token: "sim-token-5251" } }],
    }),
  );
  return path;
}

/** The messages of the JSON log lines on stderr, by pino level (20 debug, 30 info...). */
function logged(stderr: string): { level: number; msg: string }[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
}

describe.concurrent("the log level of a command", () => {
  it.for([
    ["the config's logLevel when nothing else says", "warn", {}, [], []],
    ["info without any setting", undefined, {}, [], ["sync started"]],
    [
      "TAS_LOG_LEVEL over the config",
      "warn",
      { TAS_LOG_LEVEL: "debug" },
      [],
      ["sync started", "reports fetched"],
    ],
    ["--log-level over TAS_LOG_LEVEL", "debug", { TAS_LOG_LEVEL: "debug" }, ["--log-level", "error"], []],
    ["--log-level over the config", "warn", {}, ["--log-level", "debug"], ["plan list received; applying"]],
  ] as const)("is %s", async ([, level, env, flags, expected], { expect }) => {
    // An empty TAS_LOG_LEVEL counts as unset: the test's own environment cannot leak in.
    const r = await cli(["sync", "--config", config(level), ...flags], { TAS_LOG_LEVEL: "", ...env });
    expect(r.code).toBe(0);
    const msgs = logged(r.stderr).map((l) => l.msg);
    if (expected.length === 0) expect(msgs).toEqual([]);
    for (const m of expected) expect(msgs).toContain(m);
  });

  it("adds the sync's phases at debug, as debug lines", async ({ expect }) => {
    const r = await cli(["sync", "--config", config("warn"), "--log-level", "debug"], { TAS_LOG_LEVEL: "" });
    const debug = logged(r.stderr)
      .filter((l) => l.level === 20)
      .map((l) => l.msg);
    expect(debug).toEqual(expect.arrayContaining(["reports fetched", "plan list received; applying"]));
  });
});
