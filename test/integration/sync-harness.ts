/**
 * Shared set-up of the pull-side integration tests: a simulator over real HTTP, a fresh
 * database of the given store kind per harness (a SQLite file in a temp dir, or a PostgreSQL
 * database), clients with a fast sleep (so retries and backoff cost milliseconds), and small
 * helpers for the admin API and SQL checks written once for both dialects.
 */
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
import type { Store } from "../../src/store/port.js";
import { type CompanySyncResult, type SchemaSettings, syncCompany } from "../../src/sync/company.js";
import { PLAN_CHILD_TABLES as PLAN_LISTS, REPORT_CHILD_TABLES } from "../../src/tables/table-names.js";
import { rowStamp, type Sql, type StoreKind, sqlOn } from "../support/stores.js";

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
  store?: Store;
  /** How the run observes the service's schema (default: observe, evolve). */
  schema?: SchemaSettings;
  /** sync.readAheadMiB in bytes (0: every new or changed plan is read by the worker thread). */
  readAheadBytes?: number;
}

/** `rows` and `scalar` run on the harness's store; `sqlOn` checks another one. */
export interface Harness extends Sql {
  kind: StoreKind;
  sim: RunningSimulator;
  /** The `database` config value of `store`. */
  database: string;
  store: Store;
  http: HttpTransport;
  /** A fresh database of the harness's kind (a `database` config value), not yet migrated. */
  freshDatabase(): Promise<string>;
  /** Opens `database` (closed with the harness); a fresh one when not given. */
  openStore(database?: string): Promise<Store>;
  sqlOn(store: Store): Sql;
  client(companyId: number, auth?: TokenProvider): TasClient;
  passwordAuth(companyId: number, opts?: { password?: string; now?: () => number }): PasswordGrantProvider;
  sync(companyId?: number, opts?: SyncOptions): Promise<CompanySyncResult>;
  close(): Promise<void>;
}

/** Its databases are dropped by `kind.cleanup()` (the test file's afterAll). */
export async function startHarness(
  kind: StoreKind,
  simOpts: SimulatorOptions = {},
  opts: { maxAttempts?: number } = {},
): Promise<Harness> {
  const sim = await startSimulator({ port: 0, plans: 6, reports: 2, ...simOpts });
  const stores: Store[] = [];
  const open = async (database?: string) => {
    const s = await kind.open(database ?? (await kind.fresh({ migrated: true })));
    stores.push(s);
    return s;
  };
  const database = await kind.fresh({ migrated: true });
  const store = await open(database);
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
        ...(o.schema ? { schema: o.schema } : {}),
        ...(o.readAheadBytes === undefined ? {} : { readAheadBytes: o.readAheadBytes }),
      },
      { companyId, reportIds: o.reportIds ?? reportIdsOf(sim, companyId), trigger: "test" },
    );
  };
  const sql = sqlOn(kind, store);
  return {
    ...sql,
    kind,
    sim,
    database,
    store,
    http,
    freshDatabase: () => kind.fresh(),
    openStore: open,
    sqlOn: (s) => sqlOn(kind, s),
    client,
    passwordAuth,
    sync,
    async close() {
      await http.close();
      await sim.close();
      for (const s of stores) await s.close();
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

/** Every table that holds a plan's or a report's items (and the mobile apps they share). */
export const PLAN_CHILD_TABLES = [...PLAN_LISTS, "mobile_apps", ...REPORT_CHILD_TABLES] as const;

/**
 * Count and highest row stamp (see rowStamp) of every child table: equal snapshots mean no
 * row was inserted again or rewritten.
 */
export async function childSnapshot(sql: Sql): Promise<Record<string, [number, number | null]>> {
  const out: Record<string, [number, number | null]> = {};
  for (const t of PLAN_CHILD_TABLES) {
    const [r] = await sql.rows<{ n: number; m: number | null }>(
      `SELECT count(*) AS n, max(${rowStamp(sql.dialect)}) AS m FROM ${t}`,
    );
    out[t] = [r?.n ?? 0, r?.m ?? null];
  }
  return out;
}

/** The mirrored content of the plans (no timestamps), for comparing two databases. */
export async function contentDump(sql: Sql): Promise<unknown> {
  return {
    plans: await sql.rows(
      "SELECT id, company_id, content_hash, deleted_at IS NULL AS live FROM plans ORDER BY id",
    ),
    environments: await sql.rows("SELECT * FROM plan_environments ORDER BY plan_id, environment_id"),
    resolutions: await sql.rows("SELECT * FROM plan_resolutions ORDER BY plan_id, os"),
    days: await sql.rows("SELECT * FROM plan_days_of_week ORDER BY plan_id, day_number"),
    apps: await sql.rows("SELECT * FROM mobile_apps ORDER BY id"),
    reports: await sql.rows("SELECT id, content_hash FROM scheduled_reports ORDER BY id"),
    reportPlans: await sql.rows("SELECT * FROM report_plans ORDER BY report_id, plan_id"),
  };
}
