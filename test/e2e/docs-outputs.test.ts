/**
 * Every command output quoted in README.md and docs/ is produced here, by the built CLI, so that
 * counts, wording and step numbers cannot drift from what the program prints.
 *
 * A ```text block is marked by an HTML comment on the line above it (invisible on the page):
 *
 *   <!-- output in quickstart:
 *   tas-sync migrate
 *   tas-sync sync
 *   -->
 *
 * The lines after `output in SETUP:` are a shell script (sh), run in a fresh directory of the
 * SETUP below with `tas-sync` on the PATH; what it prints (stdout and stderr, in order, log lines
 * left out) must equal the block after both are normalized: durations, timestamps, ports, UUIDs
 * (a push's batch id) and PostgreSQL URLs read as placeholders, and a line `…` in the block stands for any lines. A
 * block that is not output (a diagram, a layout, a format) says so: `<!-- not output: why -->`;
 * an output that no setup here can produce yet (a run overdue by minutes) says why:
 * `<!-- output not checked: why -->`, a debt that the test counts. Any other text block fails
 * the test, so a new quote of output cannot go unchecked.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, type SimulatorOptions, startSimulator } from "../../src/simulator/server.js";
import { BIN, ensureBuilt, ROOT } from "../support/built-cli.js";
import { type RunningDaemon, startDaemon, until } from "../support/daemon.js";
import { testPrefix } from "../support/owner.js";
import { PG_URL, TestDatabases } from "../support/postgres.js";

interface Block {
  where: string;
  /** The marker: an output's setup and script, or why it is not output; null when unmarked. */
  marker: { setup: string; script: string } | { notOutput: string } | null;
  text: string;
}

const markdown = [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && !f.startsWith("reference"))
    .map((f) => join(ROOT, "docs", f)),
];

function blocksIn(path: string): Block[] {
  const text = readFileSync(path, "utf8");
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  const out: Block[] = [];
  for (const m of text.matchAll(/^```text\n([\s\S]*?)^```/gm)) {
    const before = text.slice(0, m.index).replace(/\n$/, "");
    const comment = /<!--((?:(?!<!--)[\s\S])*?)-->$/.exec(before);
    let marker: Block["marker"] = null;
    const body = comment?.[1]?.trim() ?? "";
    const output = /^output in ([a-z-]+):\n([\s\S]*)$/.exec(body);
    if (output) marker = { setup: output[1] ?? "", script: output[2] ?? "" };
    else if (/^(not output|output not checked):/.test(body)) marker = { notOutput: body };
    out.push({ where: `${relative(ROOT, path)}:${lineOf(m.index ?? 0)}`, marker, text: m[1] ?? "" });
  }
  return out;
}

const blocks = markdown.flatMap(blocksIn);

/** What varies from run to run reads the same on both sides. */
function normalize(text: string): string[] {
  return text
    .replace(/\b\d+-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, "<time>")
    .replace(/(?<![\d.])1\d{9}\.\d+\b/g, "<unix time>")
    .replace(/\b\d+(\.\d+)? ?(s|ms)\b/g, "<duration>")
    .replace(/\b(127\.0\.0\.1|localhost):\d+/g, "$1:<port>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/postgres(ql)?:\/\/[^\s)]+/g, "<postgres url>")
    .split("\n")
    .map((l) => l.trimEnd())
    .map(lastRuleFree)
    .filter((l, i, all) => l !== "" || i < all.length - 1);
}

/**
 * A table's rule line (`-------  ----`) with its last column's dashes read as any width: that
 * column is as wide as its widest cell, which may be a path in the test's directory (longer than
 * the `/srv/tas-sync` it reads as); the other columns' widths still show in every padded line.
 */
function lastRuleFree(line: string): string {
  return /^-+( +-+)+$/.test(line) ? line.replace(/-+$/, "-…") : line;
}

/** Does `actual` match `expected`, where a line `…` (or `...`) in `expected` stands for any lines? */
function matches(expected: string[], actual: string[]): boolean {
  const [first, ...rest] = expected;
  if (first === undefined) return actual.length === 0;
  if (first === "…" || first === "...")
    return actual.some((_, i) => matches(rest, actual.slice(i))) || matches(rest, []);
  return actual[0] === first && matches(rest, actual.slice(1));
}

/** The config of the README's quickstart (step 3), pointed at `sim`, and whether step 3 makes it private. */
function quickstartConfig(sim: RunningSimulator): { json: string; private: boolean } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const step = /\*\*3\. Write a config\.\*\*([\s\S]*?)\*\*4\./.exec(readme)?.[1] ?? "";
  const json = /```json\n([\s\S]*?)```/.exec(step)?.[1];
  if (!json) throw new Error("README.md: no config under step 3 (**3. Write a config.**)");
  return {
    json: json.replaceAll("http://127.0.0.1:8080", `http://127.0.0.1:${sim.port}`),
    private: /^chmod 600 tas-sync\.config\.json\b/m.test(step),
  };
}

/** Both simulator companies, each with its static token, syncing into ./tas.db. */
function simulatorConfig(sim: RunningSimulator): string {
  const config = {
    baseUrl: sim.baseUrl,
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      auth: { token: c.staticToken },
    })),
    database: "./tas.db",
  };
  return JSON.stringify(config, null, 2);
}

let root: string;
let bin: string;
let sim: RunningSimulator;
const databases = new TestDatabases();
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/**
 * The PostgreSQL roles made as `$READER` (a role is the server's, not a database's): dropped
 * after the file, once the databases that granted them something are gone.
 */
const roles: string[] = [];
/** The BullMQ key prefixes the push setups used: their keys are deleted after the file. */
const prefixes: string[] = [];

/**
 * A simulator of its own (1 plan, no report, both companies) and the shared Redis under a
 * queue prefix of its own: `push` creates scenarios in it, and `push --wait` runs the workers.
 */
async function pushSetup(
  dir: string,
  faults: SimulatorOptions["faults"] = {},
): Promise<Record<string, string>> {
  const own = await startSimulator({ port: 0, plans: 1, reports: 0, faults });
  simulators.push(own);
  const prefix = testPrefix();
  prefixes.push(prefix);
  const config = { ...JSON.parse(simulatorConfig(own)), redisUrl: REDIS_URL, queuePrefix: prefix };
  writeFileSync(join(dir, "tas-sync.config.json"), JSON.stringify(config, null, 2));
  return {};
}

/** The daemons the running block's setup started: stopped when its script ends, passed or not. */
const daemons: RunningDaemon[] = [];

/**
 * A `tas-sync daemon` on a simulator of its own (3 plans and 1 report a company) and the shared
 * Redis under a prefix of its own, its server on a free port ($SERVER_URL), its pid $DAEMON_PID, whose config refuses
 * nothing but company 5252's token is wrong: 5251 syncs, 5252 fails, and 5252's push rows are held.
 * Ready when the server listens and both companies' first runs ended.
 */
async function daemonSetup(dir: string): Promise<Record<string, string>> {
  const own = await startSimulator({ port: 0, plans: 3, reports: 1 });
  simulators.push(own);
  const prefix = testPrefix();
  prefixes.push(prefix);
  const config = {
    ...JSON.parse(simulatorConfig(own)),
    database: join(dir, "tas.db"),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    server: { port: 0 },
  };
  config.companies[1].auth.token = "wrong-token";
  writeFileSync(join(dir, "tas-sync.config.json"), JSON.stringify(config, null, 2), { mode: 0o600 });
  const daemon = startDaemon(["--config", join(dir, "tas-sync.config.json")], { HOME: dir });
  daemons.push(daemon);
  const url = await daemon.url();
  const ended = (l: { msg: string }) => l.msg === "sync finished" || l.msg === "sync failed";
  await until("both companies' first runs", () =>
    daemon.logs().filter(ended).length >= 2 ? true : undefined,
  );
  return { SERVER_URL: url, DAEMON_PID: String(daemon.child.pid) };
}

/** Stops the block's daemons: SIGTERM, then SIGKILL if one is not gone in 10 s. */
async function stopDaemons(): Promise<void> {
  for (const d of daemons.splice(0)) {
    d.kill("SIGTERM");
    const killer = setTimeout(() => d.kill("SIGKILL"), 10_000);
    await d.exited.catch(() => undefined);
    clearTimeout(killer);
  }
}

/**
 * The setups a block can run in. Each gets a fresh directory; `simulator` and `quickstart`
 * share one simulator as `tas-sync simulate` starts it (2 companies, 50 plans and 3 reports
 * each, seed 1), which no block changes; `daemon` runs one (see daemonSetup); `drift` has one of its own whose plans change after
 * the first plan list, and `push` and `push-lost` one each with a Redis queue prefix of their
 * own. `$PG_URL` is a fresh PostgreSQL database.
 */
const SETUPS: Record<string, (dir: string) => Record<string, string> | Promise<Record<string, string>>> = {
  empty: () => ({}),
  simulator: (dir) => {
    writeFileSync(join(dir, "tas-sync.config.json"), simulatorConfig(sim));
    return {};
  },
  // As in a user's directory (others may enter it), with step 3's chmod when the README has it:
  // without it, every command warns that the file names its secrets.
  quickstart: (dir) => {
    const { json, private: own } = quickstartConfig(sim);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "tas-sync.config.json"), json, { mode: 0o644 });
    if (own) chmodSync(join(dir, "tas-sync.config.json"), 0o600);
    return { TAS_CLIENT_SECRET: "sim-client-secret", TAS_PASSWORD: "pass-5251" };
  },
  // A simulator of its own whose plans change after the first plan list (a new field, a new
  // value, a type change), 60 plans a company: the second sync finds schema changes.
  drift: async (dir) => {
    const own = await startSimulator({ port: 0, plans: 60, drift: true });
    simulators.push(own);
    writeFileSync(join(dir, "tas-sync.config.json"), simulatorConfig(own));
    return {};
  },
  // Push on a simulator of its own (see pushSetup); `push-lost` loses every create's answer
  // after the service stored it, so a row's second attempt finds its name taken: `exists`.
  push: (dir) => pushSetup(dir),
  "push-lost": (dir) => pushSetup(dir, { dropAfterCommitRate: 1 }),
  // A simulator of its own whose next plan list answers after 3 s: a sync started in the
  // background holds its company's lease that long.
  "slow-list": async (dir) => {
    const own = await startSimulator({
      port: 0,
      plans: 33,
      reports: 0,
      faults: { planListDelayOnceMs: 3000 },
    });
    simulators.push(own);
    writeFileSync(join(dir, "tas-sync.config.json"), simulatorConfig(own));
    return {};
  },
  // A simulator of its own (3 plans and 1 report a company) whose plans the script may edit
  // through its admin endpoints, under $SIM_URL/__admin.
  editable: async (dir) => {
    const own = await startSimulator({ port: 0, plans: 3, reports: 1 });
    simulators.push(own);
    writeFileSync(join(dir, "tas-sync.config.json"), simulatorConfig(own));
    return { SIM_URL: own.baseUrl };
  },
  // A daemon running (see daemonSetup), stopped when the script ends.
  daemon: (dir) => daemonSetup(dir),
};
const simulators: RunningSimulator[] = [];

beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "tas-docs-out-"));
  bin = join(root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "tas-sync"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, "tas-sync"), 0o755);
  sim = await startSimulator({ port: 0 });
}, 120_000);
afterAll(async () => {
  await stopDaemons();
  if (prefixes.length) {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      for (const prefix of prefixes) {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
      }
    } finally {
      redis.disconnect();
    }
  }
  await sim?.close();
  for (const s of simulators) await s.close();
  await databases.dropAll();
  if (roles.length) {
    const server = new pg.Client({ connectionString: PG_URL });
    await server.connect();
    try {
      for (const role of roles) await server.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await server.end();
    }
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs a block's script; stdout and stderr in the order written, JSON log lines left out. */
async function run(setup: string, script: string): Promise<string> {
  const prepare = SETUPS[setup];
  if (!prepare) throw new Error(`unknown setup "${setup}" (known: ${Object.keys(SETUPS).join(", ")})`);
  const dir = mkdtempSync(join(root, `${setup}-`));
  let output: string;
  // A fresh database's name and a role's read as a server's would: tas, metabase.
  const names = new Map<string, string>();
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      TAS_LOG_FORMAT: "json",
      EXAMPLES: join(ROOT, "examples"),
      // No REDIS_URL: it would override every config's redisUrl (as documented), the blocks' own
      // included; the setups that use Redis write the suite's into their config.
      ...(await prepare(dir)),
    };
    if (script.includes("$PG_URL")) {
      env.PG_URL = await databases.create();
      names.set(new URL(env.PG_URL).pathname.slice(1), "tas");
    }
    if (script.includes("$READER")) {
      env.READER = `tas_test_reader_${randomBytes(5).toString("hex")}`;
      roles.push(env.READER);
      names.set(env.READER, "metabase");
    }
    output = await new Promise<string>((ok) => {
      // A process group of its own: a script that hangs is ended with everything it started
      // (a daemon, a background sync), not only its shell.
      const child = spawn("sh", ["-c", `exec 2>&1\n${script}`], { cwd: dir, env, detached: true });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(killGroup, 55_000);
      child.on("close", () => {
        clearTimeout(timer);
        killGroup(); // anything the script left running in the background
        ok(stdout);
      });
    });
  } finally {
    await stopDaemons();
  }
  // The directory reads as a server's would (paths in messages are absolute).
  for (const [name, reads] of names) output = output.replaceAll(name, reads);
  return output
    .replaceAll(dir, "/srv/tas-sync")
    .split("\n")
    .filter((l) => !l.startsWith('{"level"'))
    .join("\n");
}

describe("the comparison of a block with what was printed", () => {
  const block = normalize(
    "database ./tas.db is up to date (7 migrations applied)\ncompany 1: succeeded in 0.3s\n…",
  );
  it("lets durations, ports and the lines under … vary", () => {
    const printed =
      "database ./tas.db is up to date (7 migrations applied)\ncompany 1: succeeded in 12.5s\nmore\nlines";
    expect(matches(block, normalize(printed))).toBe(true);
    expect(matches(normalize("at 127.0.0.1:8080"), normalize("at 127.0.0.1:41831"))).toBe(true);
    expect(matches(normalize("seconds 1795383822.443"), normalize("seconds 1795767463.269"))).toBe(true);
    expect(matches(normalize("total 1795383822"), normalize("total 1795767463"))).toBe(false);
    expect(
      matches(
        normalize("batch_id = '7f0c9e52-3b1d-4c8a-9f27-5d2e8a1b6c40'"),
        normalize("batch_id = 'cf1bff34-07c8-4969-aa54-e43efdfa2d28'"),
      ),
    ).toBe(true);
  });
  it("lets a table's last column be as wide as its cells, and no other column", () => {
    const rule = "key      source\n-------  ----------------------";
    expect(
      matches(normalize(rule), normalize("key      source\n-------  --------------------------------")),
    ).toBe(true);
    expect(matches(normalize(rule), normalize("key      source\n--------  ----------------------"))).toBe(
      false,
    );
  });
  it("tells a changed count or a missing line", () => {
    expect(
      matches(
        block,
        normalize("database ./tas.db is up to date (5 migrations applied)\ncompany 1: succeeded in 0.3s"),
      ),
    ).toBe(false);
    expect(matches(block, normalize("database ./tas.db is up to date (7 migrations applied)"))).toBe(false);
  });
});

describe("command outputs quoted in the README and docs/", () => {
  it("finds the blocks, and each is marked as output or as not output", () => {
    expect(blocks.filter((b) => b.marker && "setup" in b.marker).length).toBeGreaterThanOrEqual(5);
    const unmarked = blocks.filter((b) => b.marker === null).map((b) => b.where);
    expect(unmarked, "mark each as <!-- output in SETUP: script --> or <!-- not output: why -->").toEqual([]);
  });

  const outputs = blocks.flatMap((b) => (b.marker && "setup" in b.marker ? [{ ...b, ...b.marker }] : []));
  it.for(outputs)("$where is what its commands print", async ({ where, setup, script, text }) => {
    const actual = await run(setup, script);
    const expected = normalize(text);
    if (!matches(expected, normalize(actual)))
      expect.fail(
        `${where}: the block differs from what its commands print.\nblock:\n${text}\nprinted:\n${actual}`,
      );
  });
});

describe("the quickstart's steps", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const quickstart = readme.slice(
    readme.indexOf("## Quickstart"),
    readme.indexOf("\n## ", readme.indexOf("## Quickstart") + 1),
  );
  const steps = [...quickstart.matchAll(/^\*\*(\d+)\. ([^*]+?)\.?\*\*/gm)].map((m) => ({
    n: Number(m[1]),
    title: m[2] ?? "",
  }));

  it("are numbered 1, 2, 3, … in order", () => {
    expect(steps.length).toBeGreaterThanOrEqual(5);
    expect(steps.map((s) => s.n)).toEqual(steps.map((_, i) => i + 1));
  });

  it("are named by number and title where the text points at one", () => {
    // "step 8, *Point it at your company*,": a number alone would drift when a step is added.
    for (const m of readme.matchAll(/\bsteps? (\d+)(, \*([^*]+)\*)?/g)) {
      const step = steps.find((s) => s.n === Number(m[1]));
      expect(m[2], `"${m[0]}": write "step N, *Title*"`).toBeDefined();
      expect(step?.title, `"${m[0]}" names no step of that number and title`).toBe(m[3]);
    }
  });
});
