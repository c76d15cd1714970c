/**
 * No secret leaks, on SQLite and PostgreSQL: the built CLI runs `sync`, `push --wait`, a
 * `daemon` (scheduled syncs, a queued push, /, /metrics and /queues behind basic auth, webhook
 * alerts), a `sync` whose credentials are refused, `status` and `push-failures`, all at log
 * level debug, with every secret unique to the run. Then every form of every secret (see
 * test/support/secrets.ts) is hunted in the logs and output, every file the run left (the
 * SQLite database with its -wal/-shm, spool files), every table of the database dumped as
 * text, every command sent to Redis (MONITOR) and every key left there with its values, what
 * the webhook receiver got and what the HTTP server answered. Nothing may be found; a planted
 * secret and the data the run did write must be found, so the search can fail.
 *
 * Redis is a redis-server of the test's own with `requirepass`, so `redisUrl` holds a password
 * too. On PostgreSQL the database belongs to a role made for the test, with a password, given
 * in the `database` URL. The company usernames are not hunted: the service puts them in the
 * data it serves (a report's `created_user`), so they end up in the mirror by design.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type RunningSimulator, SIM_CLIENT_ID, startSimulator } from "../../src/simulator/server.js";
import type { Store } from "../../src/store/port.js";
import { cli, ensureBuilt, type Run } from "../support/built-cli.js";
import { type LogLine, startDaemon, until } from "../support/daemon.js";
import { testPrefix } from "../support/owner.js";
import { PG_URL } from "../support/postgres.js";
import { OwnRedis } from "../support/redis-server.js";
import { type NamedSecret, SecretSearch, secretForms } from "../support/secrets.js";
import { type StoreKind, storeKinds } from "../support/stores.js";

const MISSING_PROJECT = 99_999;
/** Closed after each test, last first, whatever it asserted. */
const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

interface Received {
  url: string;
  headers: Record<string, unknown>;
  body: string;
}

/** A webhook receiver on a free port; its URL carries `token` in path and query. */
async function webhookReceiver(token: string): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${address.port}/hook/${token}?key=${token}`, received };
}

/**
 * The `database` value for the run, and a dump of every table as text. PostgreSQL: a fresh
 * database owned by a role of its own whose password is `password` (dropped afterwards).
 */
async function database(
  kind: StoreKind,
  password: string,
): Promise<{ value: string; files: string | null; dump(): Promise<Map<string, string>> }> {
  const fresh = await kind.fresh();
  if (kind.name === "sqlite") {
    return {
      value: fresh,
      files: dirname(fresh),
      async dump() {
        const store = await kind.open(fresh);
        try {
          const tables = await kind.rows<{ name: string }>(
            store,
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
          );
          const out = new Map<string, string>();
          for (const { name } of tables)
            out.set(name, JSON.stringify(await kind.rows(store, `SELECT * FROM "${name}"`)));
          return out;
        } finally {
          await store.close();
        }
      },
    };
  }
  const dbName = new URL(fresh).pathname.slice(1);
  const role = `tas_secret_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: fresh });
  await admin.connect();
  cleanups.push(async () => {
    await admin.end();
    await kind.cleanup(); // the database first: a role that owns one cannot be dropped
    const root = new pg.Client({ connectionString: PG_URL });
    await root.connect();
    // A drop that gave up on a busy server (kind.cleanup is bounded) is done here: the role must go.
    await root.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await root.query(`DROP ROLE IF EXISTS ${role}`);
    await root.end();
  });
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD ${admin.escapeLiteral(password)}`);
  await admin.query(`ALTER DATABASE ${dbName} OWNER TO ${role}`);
  const url = new URL(fresh);
  url.username = role;
  url.password = encodeURIComponent(password);
  return {
    value: url.toString(),
    files: null,
    async dump() {
      const { rows: tables } = await admin.query<{ schema: string; name: string }>(
        `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
         WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
         ORDER BY 1, 2`,
      );
      const out = new Map<string, string>();
      for (const { schema, name } of tables) {
        const { rows } = await admin.query<{ j: string }>(
          `SELECT row_to_json(t)::text AS j FROM "${schema}"."${name}" t`,
        );
        out.set(`${schema}.${name}`, rows.map((r) => r.j).join("\n"));
      }
      return out;
    },
  };
}

/** Every key of `redis` (its own server: all of them are the run's) with all its values. */
async function redisDump(redis: Redis): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let parts: (Buffer | string)[];
      if (type === "string") parts = [(await redis.getBuffer(key)) ?? ""];
      else if (type === "hash") parts = Object.entries(await redis.hgetallBuffer(key)).flat();
      else if (type === "list") parts = await redis.lrangeBuffer(key, 0, -1);
      else if (type === "set") parts = await redis.smembersBuffer(key);
      else if (type === "zset") parts = await redis.zrangeBuffer(key, 0, -1, "WITHSCORES");
      else if (type === "stream")
        parts = (await redis.xrangeBuffer(key, "-", "+")).flatMap(([id, fields]) => [id, ...fields]);
      else throw new Error(`key ${key} has an unexpected type ${type}`);
      out.set(
        key,
        Buffer.concat([Buffer.from(key), ...parts.flatMap((p) => [Buffer.from("\n"), Buffer.from(p)])]),
      );
    }
  } while (cursor !== "0");
  return out;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const ndjson = (rows: Record<string, unknown>[]) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;

function row(key: string, companyId: number, projectId: number) {
  return {
    key,
    company_id: companyId,
    project_id: projectId,
    scenario_name: key,
    source_file: `${key}.java`,
  };
}

describe.each(storeKinds())("secrets on $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("never reach the logs, the database, Redis, the webhook or the HTTP answers of sync, push and the daemon", async () => {
    await ensureBuilt();
    // Letters and digits only: the tag survives every encoding, so each secret carries it.
    const tag = `Zq${randomBytes(8).toString("hex")}`;
    const sim: RunningSimulator = await startSimulator({
      port: 0,
      companies: 2,
      plans: 6,
      reports: 1,
      secretTag: tag,
      // Short-lived tokens: the daemon renews them (refresh grant, 401 then a new token).
      tokenTtlSeconds: 3,
    });
    cleanups.push(() => sim.close());
    const [first, second] = sim.companies;
    if (!first || !second) throw new Error("two companies expected");

    const redisPassword = `redis-${tag}`;
    const redis = await OwnRedis.start({ password: redisPassword });
    cleanups.push(() => redis.close());
    // Every command the run sends to Redis (jobs that are removed when done leave no key).
    const sent: string[] = [];
    const watcher = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const monitor = await watcher.monitor(); // a connection of its own
    cleanups.push(() => {
      monitor.disconnect();
      watcher.disconnect();
    });
    monitor.on("monitor", (_time: string, args: string[]) => {
      sent.push(args.join(" "));
    });
    const hookToken = `hook-${tag}`;
    const hook = await webhookReceiver(hookToken);
    const serverPassword = `srv-${tag}`;
    const wrongServerPassword = `wrong-srv-${tag}`;
    // Characters that URLs and form bodies must escape.
    const dbPassword = `pg ${tag}/&?+`;
    const db = await database(kind, dbPassword);

    const dir = mkdtempSync(join(tmpdir(), "tas-secrets-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, "tmp"));
    const prefix = testPrefix();
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: sim.baseUrl,
        database: "env:T_DATABASE",
        redisUrl: "env:T_REDIS_URL",
        queuePrefix: prefix,
        auth: {
          tokenUrl: sim.tokenUrl,
          clientId: "env:T_CLIENT_ID",
          clientSecret: "env:T_CLIENT_SECRET",
          username: "env:T_USERNAME",
          password: "env:T_PASSWORD",
        },
        companies: [
          { id: first.id, reportIds: first.reportIds },
          { id: second.id, reportIds: second.reportIds, auth: { token: "env:T_TOKEN" } },
        ],
        http: { timeoutMs: 5000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
        sync: { every: "2s" },
        push: { ratePerSecond: 200, concurrency: 4, maxAttempts: 2, lockDurationMs: 1000 },
        server: { port: 0, username: "metrics", password: "env:T_SERVER_PASSWORD" },
        alerts: { webhookUrl: "env:T_WEBHOOK_URL", timeoutMs: 5000 },
        shutdownGraceMs: 5000,
      }),
    );
    const env = {
      T_DATABASE: db.value,
      T_REDIS_URL: redis.url,
      T_CLIENT_ID: SIM_CLIENT_ID,
      T_CLIENT_SECRET: sim.clientSecret,
      T_USERNAME: first.username,
      T_PASSWORD: first.password,
      T_TOKEN: second.staticToken,
      T_SERVER_PASSWORD: serverPassword,
      T_WEBHOOK_URL: hook.url,
      TMPDIR: join(dir, "tmp"),
    };
    const run = (...args: string[]) => cli([...args, "--config", config, "--log-level", "debug"], env);
    const runs: [string, Run][] = [];

    // One-shot: a sync of both companies, then a push run to the end in this process.
    const sync = await run("sync");
    runs.push(["sync", sync]);
    expect(sync.code, sync.stderr).toBe(0);
    const seed1 = join(dir, "first.ndjson");
    writeFileSync(
      seed1,
      ndjson([
        row("one-a", first.id, first.projectIds[0] ?? 0),
        row("one-b", second.id, second.projectIds[0] ?? 0),
        row("one-missing", first.id, MISSING_PROJECT),
      ]),
    );
    const pushWait = await run("push", seed1, "--wait");
    runs.push(["push --wait", pushWait]);
    expect(pushWait.code, pushWait.stderr).toBe(1); // one row failed: its project does not exist

    // The daemon: scheduled syncs, the push it consumes, its HTTP server, alerts.
    const daemon = startDaemon(["--config", config, "--log-level", "debug"], env);
    cleanups.push(async () => {
      daemon.kill("SIGKILL");
      await daemon.exited;
    });
    const finished = (l: LogLine, status?: string) =>
      l.msg === "sync finished" && (status === undefined || l.status === status);
    const companiesDone = (status?: string) =>
      [first.id, second.id].every((id) =>
        daemon.logs().some((l) => finished(l, status) && l.companyId === id),
      );
    await until("a scheduled sync of each company", () => (companiesDone("succeeded") ? true : undefined));

    const seed2 = join(dir, "second.ndjson");
    writeFileSync(
      seed2,
      ndjson([
        row("two-a", first.id, first.projectIds[1] ?? 0),
        row("two-b", second.id, second.projectIds[1] ?? 0),
        row("two-missing", second.id, MISSING_PROJECT),
      ]),
    );
    const push = await run("push", seed2);
    runs.push(["push", push]);
    expect(push.code, push.stderr).toBe(0);
    const store: Store = await kind.open(db.value);
    cleanups.push(() => store.close());
    const outbox = await until("the daemon to settle the second push", async () => {
      const rows = await kind.rows<{ key: string; status: string }>(
        store,
        "SELECT key, status FROM scenario_requests WHERE key LIKE 'two-%' ORDER BY key",
      );
      return rows.length === 3 && rows.every((r) => r.status !== "queued" && r.status !== "pending")
        ? rows
        : undefined;
    });
    expect(outbox).toEqual([
      { key: "two-a", status: "created" },
      { key: "two-b", status: "created" },
      { key: "two-missing", status: "failed" },
    ]);

    const base = await daemon.url();
    const answers: [string, Response, string][] = [];
    const get = async (path: string, password?: string) => {
      const headers: Record<string, string> =
        password === undefined
          ? {}
          : { authorization: `Basic ${Buffer.from(`metrics:${password}`).toString("base64")}` };
      const res = await fetch(`${base}${path}`, { headers });
      answers.push([
        `${path} (${password === undefined ? "no" : password === serverPassword ? "right" : "wrong"} password)`,
        res,
        await res.text(),
      ]);
      return res.status;
    };
    expect(await get("/", serverPassword)).toBe(200);
    // The home page counts the outbox as the store does (and, below, holds no secret).
    const counts = await store.outbox.counts();
    for (const state of ["created", "failed"] as const)
      expect(answers.at(-1)?.[2]).toContain(`State">${state}</td><td data-label="Rows">${counts[state]}<`);
    expect(await get("/metrics", serverPassword)).toBe(200);
    expect(await get("/queues", serverPassword)).toBe(200);
    expect(await get("/queues/api/queues?page=1&jobsPerPage=50", serverPassword)).toBe(200);
    expect(await get("/metrics", wrongServerPassword)).toBe(401);
    expect(await get("/queues", wrongServerPassword)).toBe(401);
    expect(await get("/metrics")).toBe(401);
    expect(await get("/", wrongServerPassword)).toBe(401);
    expect(await get("/")).toBe(401);
    expect(await get("/healthz")).toBe(200);
    expect(await get("/readyz")).toBe(200);

    // Every /api request answered 500: both companies start failing, then recover.
    const events = (event: string) =>
      hook.received.filter((r) => (JSON.parse(r.body) as { event: string }).event === event).length;
    sim.state.setFaults({ errorRate: 1 });
    await until("a sync_failed alert", () => (events("sync_failed") >= 1 ? true : undefined));
    sim.state.resetFaults();
    await until("a company_recovered alert", () => (events("company_recovered") >= 1 ? true : undefined));
    daemon.kill("SIGTERM");
    const daemonRun = await daemon.exited;
    runs.push(["daemon", daemonRun]);
    expect(daemonRun.code, daemonRun.stderr.slice(-2000)).toBe(0);

    // Refused credentials: a wrong password (token endpoint 401) and a wrong static token (API
    // 401). Both carry the tag, so error messages that echo them would be found.
    const refused = await cli(["sync", "--config", config, "--log-level", "debug"], {
      ...env,
      T_PASSWORD: `wrong-pass-${tag}`,
      T_TOKEN: `wrong-token-${tag}`,
    });
    runs.push(["sync with refused credentials", refused]);
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.stdout).toContain("token: HTTP 401 INVALID_CLIENT");
    expect(refused.stdout).toContain("HTTP 401 UNAUTHORIZED");
    // Which credential was refused, and where it is configured.
    expect(refused.stdout).toContain("the service refused the static token (companies[1].auth.token)");
    expect(refused.stdout).toMatch(/refused user "[^"]+" or its OAuth2 client: check auth\.username/);

    const status = await run("status", "--json");
    runs.push(["status --json", status]);
    const failures = await run("push-failures");
    runs.push(["push-failures", failures]);
    expect(failures.stdout).toContain("one-missing");

    // What to hunt: each secret, and what is made of them (the client's HTTP Basic header).
    const tokens = sim.state.tokens.issued();
    expect(tokens.length).toBeGreaterThan(2); // renewed while the run lasted
    const secrets: NamedSecret[] = [
      { name: "the secret tag", value: tag },
      { name: "the OAuth2 client secret", value: sim.clientSecret },
      {
        name: "the client's HTTP Basic credentials",
        value: Buffer.from(`${SIM_CLIENT_ID}:${sim.clientSecret}`).toString("base64"),
      },
      { name: "the user's password", value: first.password },
      { name: "the static token", value: second.staticToken },
      ...tokens.map((t, i) => ({ name: `issued token #${i}`, value: t })),
      // The access tokens' signatures alone: a token cut short still leaks its last part.
      ...tokens
        .filter((t) => t.split(".").length === 3)
        .map((t, i) => ({ name: `issued token #${i}'s signature`, value: t.split(".")[2] ?? "" })),
      { name: "the webhook URL's token", value: hookToken },
      { name: "the webhook URL", value: hook.url },
      { name: "the server password", value: serverPassword },
      { name: "the wrong server password tried", value: wrongServerPassword },
      { name: "the Redis password", value: redisPassword },
      { name: "the database password", value: dbPassword },
    ];
    const search = new SecretSearch(secrets);

    for (const [name, r] of runs) {
      search.search(`stdout of ${name}`, r.stdout);
      search.search(`stderr of ${name}`, r.stderr);
    }
    const fileRoots = [dir, ...(db.files ? [db.files] : [])];
    const files = fileRoots.flatMap(filesUnder).filter((f) => f !== config); // it names env vars only
    for (const f of files) if (statSync(f).isFile()) search.search(`file ${f}`, readFileSync(f));
    const tables = await db.dump();
    for (const [name, text] of tables) search.search(`table ${name}`, text);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    cleanups.push(() => client.disconnect());
    const keys = await redisDump(client);
    for (const [key, bytes] of keys) search.search(`Redis key ${key}`, bytes);
    search.search("the commands sent to Redis", sent.join("\n"));
    for (const r of hook.received) {
      // The receiver's own URL is the secret, by design; what was sent to it must hold none.
      search.search("a webhook request's headers", JSON.stringify(r.headers));
      search.search("a webhook request's body", r.body);
    }
    for (const [what, res, body] of answers) {
      search.search(`HTTP answer ${what}`, JSON.stringify([...res.headers]));
      search.search(`HTTP answer ${what}`, body);
    }

    expect(search.findings).toEqual([]);

    // The search saw what the run wrote, and finds what it is looking for.
    const debugLines = runs.flatMap(([, r]) => r.stderr.split("\n")).filter((l) => l.includes('"level":20'));
    expect(debugLines.length).toBeGreaterThan(0);
    expect(daemon.logs().some((l) => l.msg === "alert sent")).toBe(true);
    expect(hook.received.length).toBeGreaterThanOrEqual(2);
    expect([...keys.keys()].every((k) => k.startsWith(`${prefix}:`))).toBe(true);
    expect([...keys.keys()].some((k) => k.startsWith(`${prefix}:push:`))).toBe(true);
    // The push jobs' data went through Redis (the row keys), though their jobs are gone.
    expect(sent.some((c) => c.includes('"key":"two-a"'))).toBe(true);
    if (kind.name === "sqlite") expect(files.some((f) => f.endsWith(".db"))).toBe(true);
    const data = new SecretSearch([{ name: "a username", value: first.username }]);
    for (const [name, text] of tables) data.search(`table ${name}`, text);
    expect(data.findings.length).toBeGreaterThan(0); // reports name their creating user
    for (const [form, text] of secretForms(dbPassword)) {
      const planted = new SecretSearch([{ name: "planted", value: dbPassword }]);
      const found = planted.search("a planted buffer", Buffer.from(`x${text}y`)).map((f) => f.form);
      expect(found).toContain(form);
    }
    const basic = new SecretSearch([{ name: "the client secret", value: sim.clientSecret }]);
    for (const lead of ["", "a", "ab"])
      expect(
        basic.search(
          "a Basic header",
          `Basic ${Buffer.from(`${lead}${SIM_CLIENT_ID}:${sim.clientSecret}`).toString("base64")}`,
        ),
        `after ${lead.length} more byte(s)`,
      ).not.toHaveLength(0);
  }, 120_000);
});
