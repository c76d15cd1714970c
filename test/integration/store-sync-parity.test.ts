/**
 * The real pipeline (syncCompany against the simulator over HTTP) into SQLite and PostgreSQL:
 * the same runs of the same data leave the same rows in every table, column for column
 * (generated row ids aside), through a change, a deletion and a revival.
 */

import { is } from "drizzle-orm";
import { getTableConfig, type SQLiteTable, SQLiteTable as SqliteTableClass } from "drizzle-orm/sqlite-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { HttpTransport } from "../../src/api/http.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import type { Store } from "../../src/store/port.js";
import { syncCompany } from "../../src/sync/company.js";
import * as schema from "../../src/tables/sqlite/index.js";
import { type StoreKind, storeKinds } from "../support/stores.js";
import { admin, FIRST, fastSleep, logger, putPlan, reportIdsOf, simPlan } from "./sync-harness.js";

/** Columns a database makes up itself: row ids, and the run ids they point at. */
const GENERATED = new Set(["version_id", "run_id", "applied_run_id"]);
const GENERATED_ID = new Set(["sync_runs", "rejected_records", "sync_errors", "seed_rejections"]);
const T = ["2025-01-01T00:00:00.000Z", "2025-01-02T00:00:00.000Z", "2025-01-03T00:00:00.000Z"];

let sim: RunningSimulator;
let http: HttpTransport;
const kinds = storeKinds();
const stores = new Map<StoreKind, Store>();

beforeAll(async () => {
  sim = await startSimulator({ port: 0, plans: 40, reports: 3 });
  http = new HttpTransport({
    timeoutMs: 2000,
    maxAttempts: 2,
    maxRequestsPerSecond: 1000,
    connections: 4,
    logger,
    sleep: fastSleep,
  });
  for (const kind of kinds) stores.set(kind, await kind.open(await kind.fresh()));
});
afterAll(async () => {
  for (const [kind, store] of stores) {
    await store.close();
    await kind.cleanup();
  }
  await http.close();
  await sim.close();
});

async function syncAll(at: string): Promise<string[]> {
  const statuses: string[] = [];
  for (const store of stores.values()) {
    const client = new TasClient({
      http,
      baseUrl: sim.baseUrl,
      auth: new StaticTokenProvider(`sim-token-${FIRST}`),
      companyId: FIRST,
      maxAttempts: 2,
      logger,
      sleep: fastSleep,
    });
    const r = await syncCompany(
      { store, client, logger, now: () => new Date(at) },
      { companyId: FIRST, reportIds: reportIdsOf(sim, FIRST), trigger: "test" },
    );
    statuses.push(r.status);
  }
  return statuses;
}

/** Every table, every column but generated ids, in a stable order. */
async function dump(kind: StoreKind, store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of Object.values(schema)) {
    if (!is(table, SqliteTableClass)) continue;
    const config = getTableConfig(table as SQLiteTable);
    const cols = config.columns
      .map((c) => c.name)
      .filter((c) => !GENERATED.has(c) && !(c === "id" && GENERATED_ID.has(config.name)));
    const list = cols.map((c) => `"${c}"`).join(", ");
    const rows = await kind.rows<Record<string, unknown>>(store, `SELECT ${list} FROM "${config.name}"`);
    // Sorted in JS: the same order whatever the database's collation.
    out[config.name] = rows.map((r) => JSON.stringify(cols.map((c) => r[c]))).sort();
  }
  return out;
}

describe("the same syncs into SQLite and PostgreSQL", () => {
  it("leave the same rows, table for table", async () => {
    expect(kinds.map((k) => k.name)).toEqual(["sqlite", "postgres"]);
    expect(await syncAll(T[0] as string)).toEqual(["succeeded", "succeeded"]);
    const plan = await simPlan(sim, FIRST, 1002);
    await putPlan(sim, FIRST, 1002, { ...plan, plan_name: "Renamed ☕", period: { days_of_week: "2,3" } });
    const gone = await admin(sim, "DELETE", `companies/${FIRST}/plans/1003`);
    expect(gone.status).toBeLessThan(300);
    expect(await syncAll(T[1] as string)).toEqual(["succeeded", "succeeded"]);
    await admin(
      sim,
      "PUT",
      `companies/${FIRST}/plans/1003`,
      await simPlan(sim, FIRST, 1004).then((p) => ({ ...p, id: 1003 })),
    );
    await syncAll(T[2] as string);
    const [sqlite, postgres] = [...stores.entries()];
    const a = await dump(sqlite?.[0] as StoreKind, sqlite?.[1] as Store);
    const b = await dump(postgres?.[0] as StoreKind, postgres?.[1] as Store);
    expect(a.plans?.length).toBeGreaterThan(30);
    expect(a.plan_versions?.length).toBeGreaterThan(a.plans?.length ?? 0);
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
  });
});
