/**
 * Which log level a command runs at: --log-level, else TAS_LOG_LEVEL, else the config's
 * logLevel, else info (warn on a terminal unless -v); and what debug adds (the sync's phases,
 * each create of a push). The terminal is a real pseudo-terminal: util-linux's script(1).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { BIN, cli, ensureBuilt, ROOT } from "../support/built-cli.js";

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

/**
 * Runs the built CLI with stdin, stdout and stderr on a pseudo-terminal (script -q -e -c: the
 * child's exit code; /dev/null: no typescript file). Returns what the terminal showed.
 */
function onTerminal(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; screen: string }> {
  const {
    TAS_CONFIG: _c,
    TAS_LOG_LEVEL: _l,
    TAS_LOG_FORMAT: _f,
    REDIS_URL: _r,
    TAS_DATABASE: _d,
    ...base
  } = process.env;
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    execFile(
      "script",
      ["-q", "-e", "-c", quoted, "/dev/null"],
      { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 },
      (err, stdout) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        if (err && typeof err.code !== "number") reject(err);
        // Colours and cursor moves off, CRLF as LF: the lines a person reads.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
        const screen = stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replaceAll("\r\n", "\n");
        resolve({ code, screen });
      },
    );
  });
}

describe.concurrent("on a terminal", () => {
  const summary =
    /^company 5251: succeeded in \d+\.\ds \(run \d+\) - fetched 3, inserted 3, updated 0, unchanged 0, deleted 0, rejected 0$/m;

  it("a one-shot command prints its summary line and no info logs", async ({ expect }) => {
    const r = await onTerminal(["sync", "--config", config()]);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(summary);
    expect(r.screen).not.toContain("INFO");
    expect(r.screen).not.toContain("sync started");
    // Besides the progress line a slow sync draws and then clears (redrawn in place).
    const kept = r.screen
      .trim()
      .split("\n")
      .filter((l) => !/^company 5251: (reports|plans|applying) \d+ records/.test(l));
    expect(kept).toHaveLength(1);
  });

  it("-v brings the info logs back, pretty, and the summary line stays as it was", async ({ expect }) => {
    const r = await onTerminal(["sync", "-v", "--config", config()]);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(summary);
    expect(r.screen).toContain("INFO");
    expect(r.screen).toContain("sync started");
  });

  it("--log-level and TAS_LOG_LEVEL still decide when given", async ({ expect }) => {
    const flag = await onTerminal(["sync", "--log-level", "info", "--config", config()]);
    expect(flag.screen).toContain("sync started");
    const env = await onTerminal(["sync", "--config", config()], { TAS_LOG_LEVEL: "info" });
    expect(env.screen).toContain("sync started");
    expect(env.screen).toMatch(summary);
  });

  it("a config's logLevel other than info is kept (debug shows the phases)", async ({ expect }) => {
    const r = await onTerminal(["sync", "--config", config("debug")]);
    expect(r.screen).toContain("plan list received; applying");
  });
});
