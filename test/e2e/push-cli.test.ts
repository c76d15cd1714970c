/**
 * The push-side commands as a user runs them: the built CLI in a child process, against a
 * simulator in this process, a real store and the shared Redis (one unique prefix per test,
 * deleted afterwards). The commands that push run on SQLite and PostgreSQL; those that stop
 * at the seed file or at Redis run on SQLite (they never reach a store, and a SQLite file that
 * was never created shows it best).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { REDIS_URL, simConfig } from "../integration/push-harness.js";
import { cli, ensureBuilt } from "../support/built-cli.js";
import { testPrefix } from "../support/owner.js";
import { type StoreKind, storeKind, storeKinds } from "../support/stores.js";

const WRONG_TOKEN = "wrong-token-Kd5mP1";

let sim: RunningSimulator;
let dir: string;
let redis: Redis;
let deadRedis: string;
const prefixes: string[] = [];

/** A port nothing listens on: Redis "at" it is unreachable. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

interface Setup {
  config: string;
  db: string;
  prefix: string;
  seed(rows: (Record<string, unknown> | string)[]): string;
}

/**
 * A config (own database, own queue prefix) and a seed-file writer, under a name of its own;
 * the database is a SQLite file in the temp dir unless given.
 */
function setup(name: string, over: Record<string, unknown> = {}, db = join(dir, `${name}.db`)): Setup {
  const prefix = testPrefix();
  prefixes.push(prefix);
  const config = join(dir, `${name}.json`);
  writeFileSync(
    config,
    JSON.stringify(
      simConfig(sim, db, prefix, {
        logLevel: "warn",
        push: { ratePerSecond: 200, concurrency: 4, maxAttempts: 2, lockDurationMs: 1000 },
        ...over,
      }),
    ),
  );
  return {
    config,
    db,
    prefix,
    seed(rows) {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, `${rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n")}\n`);
      return file;
    },
  };
}

/** A valid row named `${tag} ${name}` (names are unique per project in the simulator). */
function row(tag: string, name: string, over: Record<string, unknown> = {}) {
  return {
    company_id: 5251,
    project_id: 52511,
    key: name,
    scenario_name: `${tag} ${name}`,
    source_file: `${name}.java`,
    ...over,
  };
}

async function query<T = Record<string, unknown>>(kind: StoreKind, db: string, sql: string): Promise<T[]> {
  const store = await kind.open(db);
  try {
    return await kind.rows<T>(store, sql);
  } finally {
    await store.close();
  }
}

const sqlite = storeKind("sqlite");

const lines = (text: string) => text.split("\n").filter((l) => l !== "");
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, plans: 1, reports: 0 });
  dir = mkdtempSync(join(tmpdir(), "tas-push-cli-"));
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  deadRedis = `redis://127.0.0.1:${await unusedPort()}`;
}, 180_000);
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  }
  redis?.disconnect();
  await sim?.close();
  await sqlite.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent("tas-sync push without the service", () => {
  it("prints the help of push", async ({ expect }) => {
    const r = await cli(["push", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Usage: tas-sync push FILE [--wait] [--dry-run] [--skip-invalid] [--strict] [--allow-empty] [--config PATH]",
    );
    for (const m of [
      "--wait",
      "--dry-run",
      "--skip-invalid",
      "--strict",
      "--allow-empty",
      "FILE:LINE: field: reason",
      "did you mean",
      "Exit codes",
    ])
      expect(r.stdout).toContain(m);
  });

  it("refuses an invalid file with exit 2, one FILE:LINE: field: reason line each on stderr, queueing nothing", async ({
    expect,
  }) => {
    const s = setup("invalid");
    const file = s.seed([
      row("inv", "good"),
      { ...row("inv", "no-source"), source_file: undefined },
      row("inv", "stray", { parent_key: "nope" }),
      "{not json",
      row("inv", "bad-time", { max_execution_time: "soon" }),
    ]);
    const r = await cli(["push", file, "--wait", "--config", s.config]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const out = lines(r.stderr);
    expect(out.slice(0, 4)).toEqual([
      `${file}:2: source_file: missing required field`,
      `${file}:3: parent_key: unknown parent_key "nope"`,
      expect.stringMatching(new RegExp(`^${file.replace(/[.\\/]/g, "\\$&")}:4: \\S`)),
      `${file}:5: max_execution_time: expected integer, got string`,
    ]);
    expect(out[4]).toBe(
      `tas-sync push: 4 problem(s) in ${file}: nothing queued (fix them, or use --skip-invalid)`,
    );
    expect(out).toHaveLength(5);
    if (existsSync(s.db)) expect(await query(sqlite, s.db, "SELECT * FROM scenario_requests")).toEqual([]);
    expect(await redis.keys(`${s.prefix}:*`)).toEqual([]);
  });

  it("dry-runs without Redis, recording and queueing nothing", async ({ expect }) => {
    const s = setup("dry", { redisUrl: deadRedis });
    const file = s.seed([
      row("dry", "suite"),
      row("dry", "child", { parent_key: "suite" }),
      row("dry", "other", { project_id: 52512 }),
    ]);
    const r = await cli(["push", file, "--dry-run", "--config", s.config]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      'would create "dry suite" in project 52511 (key suite)',
      'would create "dry child" in project 52511 (key child, child of suite)',
      'would create "dry other" in project 52512 (key other)',
      "company 5251 project 52511: 2 scenario(s)",
      "company 5251 project 52512: 1 scenario(s)",
      "dry run: 3 valid row(s), 0 problem(s); nothing recorded or queued",
    ]);
    expect(existsSync(s.db)).toBe(false);
  });

  it("exits 2 with one line when the seed file does not exist", async ({ expect }) => {
    const s = setup("missing", { redisUrl: deadRedis });
    const path = join(dir, "no-such-file.ndjson");
    const r = await cli(["push", path, "--config", s.config]);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([`tas-sync push: seed file not found: ${path}`]);
  });

  it.for([
    ["empty.ndjson", ""],
    ["blank.ndjson", "\n\n"],
    ["empty.json", "[]"],
    ["header-only.csv", "company_id,project_id,scenario_name,source_file\n"],
  ] as const)(
    "refuses %s, a file without rows, unless --allow-empty",
    async ([name, content], { expect }) => {
      const s = setup(`empty-${name}`, { redisUrl: deadRedis });
      const file = join(dir, name);
      writeFileSync(file, content);
      const refused = await cli(["push", file, "--config", s.config]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(lines(refused.stderr)).toEqual([
        `tas-sync push: ${file} has no rows: nothing queued (use --allow-empty if that is expected)`,
      ]);
      const allowed = await cli(["push", file, "--allow-empty", "--config", s.config]);
      expect(allowed.code).toBe(0);
      expect(allowed.stderr).toBe("");
      expect(lines(allowed.stdout)).toEqual([`${file} has no rows: nothing to do`]);
    },
  );

  it("says a .json file holding an object is not an array", async ({ expect }) => {
    const s = setup("json-object", { redisUrl: deadRedis });
    const file = join(dir, "object.json");
    writeFileSync(file, JSON.stringify(row("obj", "one"), null, 2));
    const r = await cli(["push", file, "--config", s.config]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const err = lines(r.stderr);
    expect(err[0]).toMatch(new RegExp(`^${escapeRe(file)}:1: expected a JSON array, got an object \\(`));
    expect(err[1]).toBe(
      `tas-sync push: 1 problem(s) in ${file}: nothing queued (fix them, or use --skip-invalid)`,
    );
  });

  it("warns once per unknown field with a did-you-mean, and refuses the file with --strict", async ({
    expect,
  }) => {
    const s = setup("unknown-field", { redisUrl: deadRedis });
    const file = s.seed([
      row("uf", "one", { descripton: "typo", owner: "ayse" }),
      row("uf", "two", { descripton: "typo" }),
    ]);
    const warned = await cli(["push", file, "--dry-run", "--config", s.config]);
    expect(warned.code).toBe(0);
    expect(lines(warned.stderr)).toEqual([
      `${file}:1: warning: descripton: unknown field (did you mean "description"?), ignored; in 2 rows`,
      `${file}:1: warning: owner: unknown field, ignored`,
    ]);
    expect(lines(warned.stdout).at(-1)).toBe(
      "dry run: 2 valid row(s), 0 problem(s); nothing recorded or queued",
    );

    const strict = await cli(["push", file, "--strict", "--config", s.config]);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe("");
    // --strict: each row with an unknown field is a problem of its own (so --skip-invalid works per row).
    expect(lines(strict.stderr)).toEqual([
      `${file}:1: descripton: unknown field (did you mean "description"?)`,
      `${file}:1: owner: unknown field`,
      `${file}:2: descripton: unknown field (did you mean "description"?)`,
      `tas-sync push: 3 problem(s) in ${file}: nothing queued (fix them, or use --skip-invalid)`,
    ]);
  });

  it("shows NUL, ESC, C1 and bytes that are not UTF-8 escaped in problem lines, never raw", async ({
    expect,
  }) => {
    const s = setup("escapes", { redisUrl: deadRedis });
    const file = join(dir, "escapes.ndjson");
    const text = [
      JSON.stringify(row("esc", "one", { "own\u0000er": 1, "x\u001b[2J": 2 })),
      JSON.stringify(row("esc", "two", { parent_key: "p\u009b[31m" })),
    ].join("\n");
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`${text}\n{"scenario_name": "`),
        Buffer.from([0xff, 0x1b]),
        Buffer.from('"}\n'),
      ]),
    );
    const r = await cli(["push", file, "--config", s.config]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(lines(r.stderr)).toEqual([
      `${file}:1: warning: own\\x00er: unknown field, ignored`,
      `${file}:1: warning: x\\x1b[2J: unknown field, ignored`,
      `${file}:2: parent_key: unknown parent_key "p\\x9b[31m"`,
      `${file}:3: unreadable encoding: not valid UTF-8`,
      `tas-sync push: 2 problem(s) in ${file}: nothing queued (fix them, or use --skip-invalid)`,
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
    expect(r.stderr.replaceAll("\n", "")).not.toMatch(/[\x00-\x1f\x7f-\x9f\ufffd]/);
  });

  it("exits 1 with one line naming the Redis URL when Redis is unreachable", async ({ expect }) => {
    const s = setup("no-redis", { redisUrl: deadRedis });
    const file = s.seed([row("nr", "one")]);
    const r = await cli(["push", file, "--wait", "--config", s.config]);
    expect(r.code).toBe(1);
    const err = lines(r.stderr);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^tas-sync push: cannot reach Redis at /);
    expect(err[0]).toContain(`at ${deadRedis} (`);
    expect(err[0]).toContain('start Redis or set "redisUrl" in the config');
    expect(existsSync(s.db)).toBe(false);
  });

  it("says in status that the push queue state is unknown when Redis is unreachable", async ({ expect }) => {
    const s = setup("status-no-redis", { redisUrl: deadRedis });
    const r = await cli(["status", "--config", s.config]);
    // Its company was never synced: not fresh, so exit 3 (for cron checks).
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      "push outbox: pending 0, queued 0, created 0, exists 0, failed 0, blocked 0, held 0",
    );
    expect(r.stdout).toContain(`queues: unknown (cannot reach Redis at ${deadRedis}`);
    const json = JSON.parse((await cli(["status", "--json", "--config", s.config])).stdout);
    expect(json.queues.error).toContain(`cannot reach Redis at ${deadRedis}`);
    expect(json.companies[0]).toMatchObject({ company_id: 5251, stale: true, last_run: null });
  });
});

describe.each(storeKinds())("tas-sync push against the simulator on $name", (kind) => {
  afterAll(() => kind.cleanup());
  /** The kind's own setup: names of its own (one simulator holds the scenarios of both kinds). */
  const on = async (name: string, over: Record<string, unknown> = {}) =>
    setup(`${name}-${kind.name}`, over, await kind.fresh());

  it("creates the valid rows with --skip-invalid and records the others in seed_rejections", async () => {
    const s = await on("skip");
    const tag = `skip-${kind.name}`;
    const file = s.seed([
      row(tag, "suite"),
      row(tag, "child", { parent_key: "suite" }),
      { ...row(tag, "broken"), scenario_name: "" },
      row(tag, "kid-of-broken", { parent_key: "broken" }),
      row(tag, "lone", { company_id: 9999 }),
    ]);
    const r = await cli(["push", file, "--wait", "--skip-invalid", "--config", s.config]);
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toContain(`${file}:3: scenario_name: must not be empty`);
    expect(lines(r.stdout)).not.toContain(`${file}:3: scenario_name: must not be empty`);
    // The summary counts the rows left out and says where they are.
    expect(lines(r.stdout)).toContain(
      "created 2, already existed 0, failed 0, skipped as invalid 3 (seed_rejections)",
    );
    const skipped = lines(r.stdout).find((l) => l.startsWith("skipped 3 invalid row(s)"));
    expect(skipped).toMatch(
      /^skipped 3 invalid row\(s\) \(3 problem\(s\), listed on stderr\), recorded in seed_rejections: tas-sync query "SELECT line, key, field, reason FROM seed_rejections WHERE batch_id = '[0-9a-f-]{36}' ORDER BY line"$/,
    );
    const listed = await cli([
      "query",
      (/tas-sync query "(.*)"$/.exec(skipped ?? "") ?? [])[1] ?? "",
      "--config",
      s.config,
    ]);
    expect(listed.code).toBe(0);
    expect(
      lines(listed.stdout)
        .slice(2)
        .map((l) => l.split(/ +/)[0]),
    ).toEqual(["3", "4", "5"]);
    expect(
      (await query(kind, s.db, "SELECT key, status FROM scenario_requests ORDER BY key")).map((x) =>
        Object.values(x),
      ),
    ).toEqual([
      ["child", "created"],
      ["suite", "created"],
    ]);
    const rejected = await query<{
      line: number;
      key: string;
      field: string;
      reason: string;
      source_file: string;
    }>(kind, s.db, "SELECT line, key, field, reason, source_file FROM seed_rejections ORDER BY line");
    expect(rejected.map((x) => [x.line, x.key, x.field])).toEqual([
      [3, "broken", "scenario_name"],
      [4, "kid-of-broken", "parent_key"],
      [5, "lone", "company_id"],
    ]);
    expect(rejected[2]?.reason).toBe("company 9999 is not in the config");
    expect(rejected.every((x) => x.source_file === file)).toBe(true);
    const names = sim.state.scenarios
      .list()
      .map((x) => x.scenarioName)
      .filter((n) => n.startsWith(`${tag} `));
    expect(names.sort()).toEqual([`${tag} child`, `${tag} suite`]);
  });

  it("reports failures in status and push-failures, and queues them again with retry-failed", async () => {
    const s = await on("outbox");
    const tag = `ob-${kind.name}`;
    const file = s.seed([
      row(tag, "fine"),
      row(tag, "also-fine", { project_id: 52512 }),
      row(tag, "ghost", { project_id: 99999 }),
      row(tag, "ghost-child", { project_id: 99999, parent_key: "ghost" }),
    ]);
    const push = await cli(["push", file, "--wait", "--config", s.config]);
    expect(push.code).toBe(1);
    expect(lines(push.stdout)).toEqual(
      expect.arrayContaining(["created 2, already existed 0, failed 2", "  failed PROJECT_NOT_FOUND: 1"]),
    );

    const status = lines((await cli(["status", "--config", s.config])).stdout);
    const at = status.indexOf(
      "push outbox: pending 0, queued 0, created 2, exists 0, failed 2, blocked 0, held 0",
    );
    expect(at).toBeGreaterThan(0);
    expect(status.slice(at + 1, at + 3).sort()).toEqual([
      "  failed PARENT_FAILED: 1",
      "  failed PROJECT_NOT_FOUND: 1",
    ]);
    const statusJson = JSON.parse((await cli(["status", "--json", "--config", s.config])).stdout);
    expect(statusJson.queues.push).toMatchObject({
      paused: false,
      jobs: { waiting: 0, active: 0, delayed: 0 },
    });
    expect(statusJson.outbox).toMatchObject({ created: 2, failed: 2 });

    const table = lines((await cli(["push-failures", "--wide", "--config", s.config])).stdout);
    expect(table[0]).toMatch(/^key +company +project +code +attempts +source +error$/);
    expect(table.slice(2).sort()).toEqual([
      expect.stringMatching(
        /^ghost +5251 +99999 +PROJECT_NOT_FOUND +1 +\S+:3 +createScenario: HTTP 404 PROJECT_NOT_FOUND/,
      ),
      expect.stringMatching(/^ghost-child +5251 +99999 +PARENT_FAILED +0 +\S+:4 +parent failed: ghost$/),
    ]);
    // Without --wide, each row's whole reason follows it, indented.
    const wrapped = lines((await cli(["push-failures", "--config", s.config])).stdout);
    expect(wrapped[0]).toMatch(/^key +company +project +code +attempts +source$/);
    const ghost = wrapped.findIndex((l) => /^ghost +5251/.test(l));
    expect(wrapped[ghost + 1]).toMatch(/^ {4}createScenario: HTTP 404 PROJECT_NOT_FOUND/);
    const json = lines(
      (await cli(["push-failures", "--json", "--code", "PROJECT_NOT_FOUND", "--config", s.config])).stdout,
    );
    expect(json.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        key: "ghost",
        error_code: "PROJECT_NOT_FOUND",
        attempts: 1,
        source_line: 3,
        source_file: file,
      }),
    ]);

    const retry = await cli(["retry-failed", "--code", "PROJECT_NOT_FOUND", "--config", s.config]);
    expect(retry.code).toBe(0);
    expect(lines(retry.stdout)).toEqual([
      "1 failed row(s) back to pending; 1 queued now (the daemon or push --wait creates them)",
    ]);
    const after = lines((await cli(["status", "--config", s.config])).stdout);
    expect(after).toContain(
      "push outbox: pending 0, queued 1, created 2, exists 0, failed 1, blocked 0, held 0",
    );
    // Settled pushes are counted by the outbox alone: the queue keeps no finished job.
    expect(after).toContain("  push: waiting 1, active 0, delayed 0, prioritized 0, paused 0");
  });

  it("says loudly which company's rows are held when its token is refused, never printing the token", async () => {
    const s = await on("refused", { companies: [{ id: 5251, auth: { token: WRONG_TOKEN } }] });
    const file = s.seed([row(`rf-${kind.name}`, "one")]);
    const r = await cli(["push", file, "--wait", "--config", s.config, "--log-level", "debug"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("created 0, already existed 0, failed 0, held 1");
    const errors = lines(r.stderr)
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 50);
    expect(errors).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^PUSH HELD for company 5251: /) }),
    ]);
    expect(errors[0]?.msg).toContain("tas-sync resume-push --company 5251");
    expect(errors[0]?.msg).toContain("Other companies' rows go on.");
    expect(`${r.stdout}${r.stderr}`).not.toContain(WRONG_TOKEN);
    const status = await cli(["status", "--config", s.config]);
    expect(status.stdout).not.toContain("PAUSED");
    expect(status.stdout).toContain(
      "  held, company 5251 (1 row(s)): the service refuses company 5251's static token (auth.token)",
    );
    const held = lines((await cli(["push-failures", "--held", "--config", s.config])).stdout);
    expect(held[2]).toMatch(/^one +5251 +52511 +CREDENTIALS_REFUSED +1 +\S+:1$/);
    // The whole reason, to its last words, wrapped below the row.
    const reason = held
      .slice(3)
      .map((l) => l.trim())
      .join(" ");
    expect(reason).toMatch(/^the service refuses .* or run: tas-sync resume-push --company 5251$/);
  });
});
