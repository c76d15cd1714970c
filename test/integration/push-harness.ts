/**
 * Shared set-up of the push-side tests: a simulator over real HTTP, a fresh database of the
 * given store kind (a SQLite file or a PostgreSQL database) and a config file in a temp dir, a
 * unique BullMQ prefix on the shared Redis (its keys are deleted on close, never the whole
 * Redis), the CLI run in this process, and checks of what the simulator really holds.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { vi } from "vitest";
import { main } from "../../src/cli.js";
import { type Config, parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";
import type { AdminScenario } from "../../src/simulator/scenarios.js";
import type { FaultOptions, RunningSimulator, SimulatorOptions } from "../../src/simulator/server.js";
import { startSimulator } from "../../src/simulator/server.js";
import type { Store } from "../../src/store/port.js";
import { bounded } from "../support/bounded.js";
import { testPrefix } from "../support/owner.js";
import { type Sql, type StoreKind, sqlOn } from "../support/stores.js";

export const logger = createLogger({ level: "silent", pretty: false });
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
export const COMPANY = 5251;
export const PROJECT = 52511;
export const OTHER_PROJECT = 52512;
/** No company of the simulator owns it: 404 PROJECT_NOT_FOUND. */
export const MISSING_PROJECT = 99_999;

/** A seed-file row (NDJSON object); `key`/`parent_key` make the parent links. */
export type SeedLine = Record<string, unknown>;

export function seedRow(name: string, over: SeedLine = {}): SeedLine {
  return {
    company_id: COMPANY,
    project_id: PROJECT,
    key: name,
    scenario_name: name,
    source_file: `${name.replace(/\W+/g, "")}.java`,
    ...over,
  };
}

/** `n` rows without parents, spread over two projects. */
export function flatRows(n: number, prefix = "flat"): SeedLine[] {
  return Array.from({ length: n }, (_, i) =>
    seedRow(`${prefix}-${i}`, { project_id: i % 2 ? OTHER_PROJECT : PROJECT }),
  );
}

export type { AdminScenario };

export interface RequestRow {
  key: string;
  status: string;
  attempts: number;
  error_code: string | null;
  last_error: string | null;
  scenario_id: number | null;
  in_flight: number;
  uncertain: number;
  parent_key: string | null;
}

export interface CliRun {
  code: number;
  /** Lines of stdout (what the command prints with ctx.out). */
  out: string[];
  stderr: string;
}

/** `rows` and `scalar` read the config's database. */
export interface PushHarness extends Omit<Sql, "dialect"> {
  kind: StoreKind;
  sim: RunningSimulator;
  dir: string;
  /** The config's `database`. */
  database: string;
  prefix: string;
  configPath: string;
  cfg: Config;
  redis: Redis;
  /** Writes an NDJSON seed file into the temp dir; returns its path. */
  seed(name: string, rows: SeedLine[]): string;
  /** Runs `tas-sync ...args --config <this config>` in this process. */
  cli(args: string[]): Promise<CliRun>;
  setFaults(patch: Partial<FaultOptions>): Promise<void>;
  scenarios(): Promise<AdminScenario[]>;
  /** POST create requests the simulator saw (including failed and dropped ones). */
  createAttempts(): Promise<number>;
  /**
   * For every outbox row, how many scenarios the service created for it, by the service's own
   * count (GET __admin/creates, by the row's project and name): key -> n.
   */
  createdPerKey(): Promise<Record<string, number>>;
  requests(): Promise<RequestRow[]>;
  request(key: string): Promise<RequestRow>;
  /** Opens the config's database (closed with the harness). */
  store(): Promise<Store>;
  redisKeys(): Promise<string[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /**
   * The simulator. Its names are not unique unless the test says so (faults.namesNotUnique 0):
   * a scenario sent twice is then created twice, and createdPerKey shows it.
   */
  sim?: SimulatorOptions;
  /** Merged over the default config (top level; `push`/`http` replace whole sections); a function gets the simulator. */
  config?: Record<string, unknown> | ((sim: RunningSimulator) => Record<string, unknown>);
}

/** Config for the simulator: every company with its static token, fast HTTP, a unique prefix. */
export function simConfig(
  sim: RunningSimulator,
  database: string,
  prefix: string,
  over: Record<string, unknown>,
) {
  return {
    baseUrl: sim.baseUrl,
    database,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logLevel: "silent",
    http: { timeoutMs: 3000, maxAttempts: 2, maxRequestsPerSecond: 1000 },
    push: { ratePerSecond: 200, concurrency: 4, maxAttempts: 3, lockDurationMs: 1000 },
    companies: sim.companies.map((c) => ({ id: c.id, auth: { token: c.staticToken } })),
    ...over,
  };
}

/** Its database is dropped by `kind.cleanup()` (the test file's afterAll). */
export async function startPushHarness(kind: StoreKind, opts: HarnessOptions = {}): Promise<PushHarness> {
  const sim = await startSimulator({
    port: 0,
    plans: 1,
    reports: 0,
    ...opts.sim,
    faults: { namesNotUnique: 1, ...opts.sim?.faults },
  });
  const dir = mkdtempSync(join(tmpdir(), "tas-push-test-"));
  const database = await kind.fresh({ migrated: true });
  const prefix = testPrefix();
  const over = typeof opts.config === "function" ? opts.config(sim) : (opts.config ?? {});
  const raw = simConfig(sim, database, prefix, over);
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(raw, null, 2));
  const cfg = parseConfig(raw, configPath);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const stores: Store[] = [];
  const adminGet = async (path: string) => {
    const res = await fetch(`${sim.baseUrl}/__admin/${path}`);
    return (await res.json()) as { scenarios: AdminScenario[]; attempts: number };
  };
  const store = async () => {
    const s = await kind.open(database);
    stores.push(s);
    return s;
  };
  let reader: Promise<Sql> | null = null;
  const sql = () => {
    reader ??= store().then((s) => sqlOn(kind, s));
    return reader;
  };
  const requests = async () =>
    (await sql()).rows<RequestRow>(
      `SELECT key, status, attempts, error_code, last_error, scenario_id, in_flight, uncertain, parent_key
       FROM scenario_requests ORDER BY key`,
    );
  const redisKeys = () => redis.keys(`${prefix}:*`);
  return {
    kind,
    sim,
    dir,
    database,
    prefix,
    configPath,
    cfg,
    redis,
    seed(name, rows) {
      const path = join(dir, name);
      writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
      return path;
    },
    cli: (args) => runCli([...args, "--config", configPath]),
    async setFaults(patch) {
      const res = await fetch(`${sim.baseUrl}/__admin/faults`, {
        method: "PUT",
        body: JSON.stringify(patch),
      });
      if (!res.ok) throw new Error(`PUT faults: ${res.status} ${await res.text()}`);
    },
    scenarios: async () => (await adminGet("scenarios")).scenarios,
    createAttempts: async () => (await adminGet("scenarios")).attempts,
    async createdPerKey() {
      const res = await fetch(`${sim.baseUrl}/__admin/creates`);
      const { creates } = (await res.json()) as { creates: Record<string, number> };
      const rows = await (await sql()).rows<{ key: string; project_id: number; scenario_name: string }>(
        "SELECT key, project_id, scenario_name FROM scenario_requests ORDER BY key",
      );
      return Object.fromEntries(rows.map((r) => [r.key, creates[`${r.project_id}/${r.scenario_name}`] ?? 0]));
    },
    rows: async (text, ...params) => (await sql()).rows(text, ...params),
    scalar: async (text, ...params) => (await sql()).scalar(text, ...params),
    requests,
    async request(key) {
      const row = (await requests()).find((r) => r.key === key);
      if (!row) throw new Error(`no scenario_requests row ${key}`);
      return row;
    },
    store,
    redisKeys,
    async close() {
      await bounded(`the Redis keys under ${prefix}`, async () => {
        const keys = await redisKeys();
        if (keys.length) await redis.del(...keys);
      });
      redis.disconnect();
      await bounded("the simulator", () => sim.close());
      await bounded("the stores", () => Promise.all(stores.map((s) => s.close())));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI's `main` in this process, capturing what it writes to stdout and stderr. */
export async function runCli(argv: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const capture = (sink: (s: string) => void) => (chunk: unknown) => {
    sink(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    return true;
  };
  const outSpy = vi.spyOn(process.stdout, "write").mockImplementation(
    capture((s) => {
      stdout += s;
    }),
  );
  const errSpy = vi.spyOn(process.stderr, "write").mockImplementation(
    capture((s) => {
      stderr += s;
    }),
  );
  try {
    const code = await main(argv);
    return { code, out: stdout.split("\n").filter((l) => l !== ""), stderr };
  } finally {
    outSpy.mockRestore();
    errSpy.mockRestore();
  }
}

/**
 * The keys the service did not create exactly once, with how many times it did: [] when each
 * of `keys` was created once. Keys not given must not have been created at all.
 */
export function notOnce(perKey: Record<string, number>, keys: readonly string[]): string[] {
  const want = new Set(keys);
  return Object.entries(perKey)
    .filter(([key, n]) => n !== (want.has(key) ? 1 : 0))
    .map(([key, n]) => `${key}: created ${n} times`)
    .concat(keys.filter((k) => !(k in perKey)).map((k) => `${k}: no such row`));
}
