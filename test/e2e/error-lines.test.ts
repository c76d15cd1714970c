/**
 * Every error is one line on stderr that starts with `tas-sync <command>: ` (or `tas-sync: `
 * when there is no command), and bad input exits 2: what a script or a person can rely on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-error-lines-"));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent("error lines", () => {
  it.for([
    [["frobnicate"], {}, "tas-sync: ", 'unknown command "frobnicate"'],
    [["snyc"], {}, "tas-sync: ", 'did you mean "sync"?'],
    [["--frobnicate", "sync"], {}, "tas-sync: ", "expected a command before the options"],
    [["-c"], {}, "tas-sync: ", "option -c needs a value"],
    [["help", "nope"], {}, "tas-sync: ", 'unknown command "nope"'],
    [
      ["sync", "--frobnicate"],
      {},
      "tas-sync sync: ",
      "unknown option --frobnicate (see tas-sync sync --help)",
    ],
    [
      ["push", "--dryrun", "f.ndjson"],
      {},
      "tas-sync push: ",
      "unknown option --dryrun (did you mean --dry-run?)",
    ],
    [["sync", "--company"], {}, "tas-sync sync: ", "option --company needs a value"],
    [["sync", "--company", "five"], {}, "tas-sync sync: ", '--company expects an integer, got "five"'],
    [["push", "--wait=yes", "f.ndjson"], {}, "tas-sync push: ", "option --wait takes no value"],
    [["push"], {}, "tas-sync push: ", "missing FILE"],
    [["migrate", "extra"], {}, "tas-sync migrate: ", 'unexpected argument "extra"'],
    [["migrate", "--log-level", "loud"], {}, "tas-sync migrate: ", 'unknown log level "loud" in --log-level'],
    [
      ["migrate"],
      { TAS_LOG_LEVEL: "loud" },
      "tas-sync migrate: ",
      'unknown log level "loud" in TAS_LOG_LEVEL',
    ],
    [["query"], {}, "tas-sync query: ", "missing the SQL text"],
    [["query", "SELECT 1", "--format", "xml"], {}, "tas-sync query: ", "--format expects one of"],
    [["set-parent-id", "k", "-3"], {}, "tas-sync set-parent-id: ", "unknown option -3"],
    [
      ["set-parent-id", "k", "abc"],
      {},
      "tas-sync set-parent-id: ",
      'ID must be a positive integer, got "abc"',
    ],
    [["push-failures", "--limit", "0"], {}, "tas-sync push-failures: ", "--limit must be at least 1"],
    [["demo", "--plans", "0"], {}, "tas-sync demo: ", "--plans must be at least 1, got 0"],
    [["status", "--config", "/nonexistent/c.json"], {}, "tas-sync status: ", "config file not found"],
    [["simulate", "--plans", "many"], {}, "tas-sync simulate: ", "--plans must be a number"],
    [
      ["simulate", "--prot", "8080"],
      {},
      "tas-sync simulate: ",
      "unknown option --prot (did you mean --port?)",
    ],
    [["simulate", "--json=yes"], {}, "tas-sync simulate: ", "option --json takes no value"],
  ] as const)("%j: one line, prefixed, exit 2", async ([args, env, prefix, message], { expect }) => {
    const r = await cli([...args], { TAS_LOG_LEVEL: "", ...env });
    expect(r.code).toBe(2);
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    // The simulator adds its usage hint on a line of its own.
    expect(lines[0]).toMatch(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(lines[0]).toContain(message);
    if (args[0] !== "simulate") expect(lines).toHaveLength(1);
  });
});
