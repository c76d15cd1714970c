/**
 * Shared set-up of the pull-side integration tests: a simulator over real HTTP, a fresh
 * temp dir with a real SQLite file per harness, clients with a fast sleep (so retries and
 * backoff cost milliseconds), and small helpers for the admin API and SQL checks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PasswordGrantProvider, StaticTokenProvider, type TokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { HttpTransport } from "../../src/api/http.js";
import { createLogger } from "../../src/log.js";
import {
  type RunningSimulator,
  SIM_CLIENT_ID,
  SIM_CLIENT_SECRET,
  type SimulatorOptions,
  startSimulator,
} from "../../src/simulator/server.js";
import { openSqliteStore, type Sqlite, type SqliteStore } from "../../src/store/sqlite/index.js";
import { type CompanySyncResult, syncCompany } from "../../src/sync/company.js";

export const logger = createLogger({ level: "silent", pretty: false });
/** Waits at most 2 ms whatever the backoff asks: retries stay real but cheap. */
export const fastSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 2)));
export const FIRST = 5251;
export const SECOND = 5252;

export interface SyncOptions {
  reportIds?: readonly number[];
  /** The run's clock (ISO); default the real time. */
  at?: string;
  client?: TasClient;
  /** Sync into another store (same simulator). */
  store?: SqliteStore;
}

export interface Harness {
  sim: RunningSimulator;
  dir: string;
  store: SqliteStore;
  http: HttpTransport;
  openStore(name: string): SqliteStore;
  client(companyId: number, auth?: TokenProvider): TasClient;
  passwordAuth(companyId: number, opts?: { password?: string; now?: () => number }): PasswordGrantProvider;
  sync(companyId?: number, opts?: SyncOptions): Promise<CompanySyncResult>;
  close(): Promise<void>;
}

export async function startHarness(
  simOpts: SimulatorOptions = {},
  opts: { maxAttempts?: number } = {},
): Promise<Harness> {
  const sim = await startSimulator({ port: 0, plans: 6, reports: 2, ...simOpts });
  const dir = mkdtempSync(join(tmpdir(), "tas-sync-test-"));
  const stores: SqliteStore[] = [];
  const open = (name: string) => {
    const s = openSqliteStore(join(dir, name));
    stores.push(s);
    return s;
  };
  const store = open("tas.db");
  const maxAttempts = opts.maxAttempts ?? 4;
  const http = new HttpTransport({
    timeoutMs: 2000,
    maxAttempts,
    maxRequestsPerSecond: 1000,
    connections: 4,
    logger,
    sleep: fastSleep,
  });
  const client = (companyId: number, auth?: TokenProvider) =>
    new TasClient({
      http,
      baseUrl: sim.baseUrl,
      auth: auth ?? new StaticTokenProvider(`sim-token-${companyId}`),
      companyId,
      maxAttempts,
      logger,
      sleep: fastSleep,
    });
  const passwordAuth = (companyId: number, o: { password?: string; now?: () => number } = {}) =>
    new PasswordGrantProvider(
      http,
      {
        tokenUrl: sim.tokenUrl,
        clientId: SIM_CLIENT_ID,
        clientSecret: SIM_CLIENT_SECRET,
        username: `user${companyId}`,
        password: o.password ?? `pass-${companyId}`,
      },
      o.now,
    );
  const sync = (companyId = FIRST, o: SyncOptions = {}) => {
    const at = o.at;
    return syncCompany(
      {
        store: o.store ?? store,
        client: o.client ?? client(companyId),
        logger,
        ...(at ? { now: () => new Date(at) } : {}),
      },
      { companyId, reportIds: o.reportIds ?? reportIdsOf(sim, companyId), trigger: "test" },
    );
  };
  return {
    sim,
    dir,
    store,
    http,
    openStore: open,
    client,
    passwordAuth,
    sync,
    async close() {
      await http.close();
      await sim.close();
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function reportIdsOf(sim: RunningSimulator, companyId: number): number[] {
  return sim.companies.find((c) => c.id === companyId)?.reportIds ?? [];
}

/** Calls {base}/__admin/...; `body` is sent as given when a string, else as JSON. */
export async function admin(
  sim: RunningSimulator,
  method: "GET" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(`${sim.baseUrl}/__admin/${path}`, init);
  return { status: res.status, text: await res.text() };
}

/** A plan as the simulator currently serves it (parsed). */
export async function simPlan(sim: RunningSimulator, companyId: number, id: number) {
  const res = await admin(sim, "GET", `companies/${companyId}/plans/${id}`);
  if (res.status !== 200) throw new Error(`no plan ${id}: ${res.status}`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

export async function putPlan(sim: RunningSimulator, companyId: number, id: number, body: unknown) {
  const res = await admin(sim, "PUT", `companies/${companyId}/plans/${id}`, body);
  if (res.status >= 300) throw new Error(`PUT plan ${id}: ${res.status} ${res.text}`);
}

export function rows<T = Record<string, unknown>>(sqlite: Sqlite, sql: string, ...params: unknown[]): T[] {
  return sqlite.prepare(sql).all(...params) as T[];
}

export function scalar<T = number>(sqlite: Sqlite, sql: string, ...params: unknown[]): T {
  return sqlite
    .prepare(sql)
    .pluck()
    .get(...params) as T;
}

export const PLAN_CHILD_TABLES = [
  "plan_days_of_week",
  "plan_resolutions",
  "plan_environments",
  "plan_scenarios",
  "plan_alerts",
  "plan_fetch_app_files",
  "plan_mobile_apps",
  "mobile_apps",
  "report_plans",
  "report_recipients",
  "report_user_roles",
  "report_statuses",
  "report_alerts",
] as const;

/** Count and highest rowid of every child table: equal snapshots mean no row was rewritten. */
export function childSnapshot(sqlite: Sqlite): Record<string, [number, number | null]> {
  const out: Record<string, [number, number | null]> = {};
  for (const t of PLAN_CHILD_TABLES) {
    const r = sqlite.prepare(`SELECT count(*) AS n, max(rowid) AS m FROM ${t}`).get() as {
      n: number;
      m: number | null;
    };
    out[t] = [r.n, r.m];
  }
  return out;
}

/** The mirrored content of the plans (no timestamps), for comparing two databases. */
export function contentDump(sqlite: Sqlite): unknown {
  return {
    plans: rows(
      sqlite,
      "SELECT id, company_id, content_hash, deleted_at IS NULL AS live FROM plans ORDER BY id",
    ),
    environments: rows(sqlite, "SELECT * FROM plan_environments ORDER BY plan_id, environment_id"),
    resolutions: rows(sqlite, "SELECT * FROM plan_resolutions ORDER BY plan_id, os"),
    days: rows(sqlite, "SELECT * FROM plan_days_of_week ORDER BY plan_id, day_number"),
    apps: rows(sqlite, "SELECT * FROM mobile_apps ORDER BY id"),
    reports: rows(sqlite, "SELECT id, content_hash FROM scheduled_reports ORDER BY id"),
    reportPlans: rows(sqlite, "SELECT * FROM report_plans ORDER BY report_id, plan_id"),
  };
}
