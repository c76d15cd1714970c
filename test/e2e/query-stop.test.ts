/**
 * A query that never ends on SQLite, stopped as a user stops it: the built CLI, a real SIGINT or
 * SIGTERM once the CLI says the query is running, then the process's exit event. Before, SQLite
 * held the only thread inside its step and only SIGKILL ended it; now the statement runs in a
 * process of its own that the CLI kills. The same for the timeout.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, startCli } from "../support/built-cli.js";

/** Counts forever: SQLite never returns from the step that computes count(*). */
const NEVER_ENDS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
/** Streams rows forever. */
const ENDLESS_ROWS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c";

let dir: string;
let db: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-query-stop-"));
  db = join(dir, "mirror.db");
  new Database(db).exec("CREATE TABLE t (a INTEGER)");
}, 120_000);
/** Query processes seen, killed after each test should one outlive a failed test. */
const seen: number[] = [];
afterEach(() => {
  for (const pid of seen.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The CLI's child processes (the query process), from /proc. */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text === "" ? [] : text.split(" ").map(Number);
}

/** Starts `query`, resolves once it logs that the statement is running, with its query process. */
async function running(args: string[]) {
  const run = startCli(["query", "--db", db, "--log-level", "debug", ...args]);
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const onData = (d: Buffer) => {
      seen += d;
      if (seen.includes('"query running"')) {
        run.child.stderr?.off("data", onData);
        resolve();
      }
    };
    run.child.stderr?.on("data", onData);
    run.child.on("exit", () => reject(new Error(`query exited before running: ${seen}`)));
  });
  const pid = run.child.pid as number;
  const queryProcesses = childrenOf(pid);
  seen.push(...queryProcesses);
  return { ...run, queryProcesses };
}

/** Resolves when the process is gone (the test's timeout bounds the wait). */
async function gone(pid: number): Promise<void> {
  while (existsSync(`/proc/${pid}`)) {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    if (state === "Z") return; // killed, waiting for its parent to reap it
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("a query that never ends on SQLite", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("stops on %s with exit %i and one line, its query process killed", async (signal, code) => {
    const run = await running([NEVER_ENDS]);
    expect(run.queryProcesses).toHaveLength(1);
    run.child.kill(signal);
    const r = await run.done;
    expect(r.code).toBe(code);
    const lines = r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("{"));
    expect(lines).toEqual([`tas-sync query: ${signal} received, stopping (Ctrl+C again to exit at once)`]);
    await gone(run.queryProcesses[0] as number);
  });

  it("takes its query process with it when killed with SIGKILL", async () => {
    const run = await running([NEVER_ENDS]);
    const [queryProcess] = run.queryProcesses;
    run.child.kill("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    await gone(queryProcess as number);
  });

  it("stops streaming rows on SIGINT", async () => {
    const run = await running(["--format", "csv", ENDLESS_ROWS]);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stdout.startsWith("x\r\n1\r\n")).toBe(true);
  });

  it("stops at its timeout with exit 2 and one line naming the key and the flag", async () => {
    const r = await startCli(["query", "--db", db, "--timeout", "1s", NEVER_ENDS]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "tas-sync query: query stopped: it ran longer than its timeout of 1s (raise query.timeout or --timeout; 0 for none)\n",
    );
  });

  it("caps a table of endless rows, says so, and ends", async () => {
    const r = await startCli(["query", "--db", db, "--max-rows", "3", ENDLESS_ROWS]).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "x\n-\n1\n2\n3\n(the first 3 rows; more were cut: raise --max-rows, 0 for all, or use --format csv)\n",
    );
  });
});
