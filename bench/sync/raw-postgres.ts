/**
 * The raw pipeline into PostgreSQL, bench:sync's baseline there: download the list whole,
 * JSON.parse it, map each plan to the same rows (normalizePlan, no validation), and load them
 * by one COPY per table in one transaction (rows as COPY text, built as they are mapped). No
 * history, no hashing, no run record. Same schema (tas-sync's migrations).
 */
import type { PgTable } from "drizzle-orm/pg-core";
import { request } from "undici";
import { databaseTarget } from "../../src/config/index.js";
import { normalizePlan } from "../../src/normalize/plan.js";
import { type CopyTable, copyTable, copyText } from "../../src/store/postgres/copy.js";
import { openPostgresStore } from "../../src/store/postgres/index.js";
import * as t from "../../src/tables/postgres/index.js";
import type { WirePlan } from "../../src/wire/schemas.js";
import { peakRssMb } from "../support.js";
import type { ChildInput, ChildResult } from "./child.js";

/** Lines per chunk of COPY text. */
const CHUNK = 1000;

class Loader {
  readonly copy: CopyTable<object>;
  readonly chunks: string[] = [];
  #text = "";
  #lines = 0;
  constructor(table: PgTable, omit: string[] = []) {
    this.copy = copyTable(table, omit) as CopyTable<object>;
  }
  add(row: object, extra?: Record<string, unknown>): void {
    this.#text += this.copy.line(row, extra);
    if (++this.#lines === CHUNK) this.end();
  }
  end(): void {
    if (this.#text) this.chunks.push(this.#text);
    this.#text = "";
    this.#lines = 0;
  }
}

export async function rawPostgres(input: ChildInput): Promise<ChildResult> {
  const target = databaseTarget(input.database as string);
  if (target.dialect !== "postgres") throw new Error("not a postgres URL");
  const store = await openPostgresStore(target);
  const client = await store.pool.connect();
  try {
    const loaders = {
      plans: new Loader(t.plans),
      days: new Loader(t.planDaysOfWeek),
      resolutions: new Loader(t.planResolutions),
      environments: new Loader(t.planEnvironments),
      scenarios: new Loader(t.planScenarios),
      alerts: new Loader(t.planAlerts),
      fetchAppFiles: new Loader(t.planFetchAppFiles),
      mobileApps: new Loader(t.mobileApps),
      planMobileApps: new Loader(t.planMobileApps),
    };
    const t0 = performance.now();
    const res = await request(`${input.baseUrl}/api/plans`, {
      headers: { authorization: `Bearer ${input.token}` },
    });
    const list = JSON.parse(await res.body.text()) as WirePlan[];
    const now = new Date().toISOString();
    const apps = new Set<number>();
    for (const item of list) {
      const n = normalizePlan(item);
      loaders.plans.add(n.plan, {
        rawJson: JSON.stringify(item),
        contentHash: "",
        firstSeenAt: now,
        seenAt: now,
      });
      for (const key of [
        "days",
        "resolutions",
        "environments",
        "scenarios",
        "alerts",
        "fetchAppFiles",
        "planMobileApps",
      ] as const)
        for (const row of n[key]) loaders[key].add(row);
      for (const app of n.mobileApps) {
        if (apps.has(app.id as number)) continue;
        apps.add(app.id as number);
        loaders.mobileApps.add(app);
      }
    }
    await client.query("BEGIN");
    for (const loader of Object.values(loaders)) {
      loader.end();
      await copyText(client, loader.copy.statement, loader.chunks);
    }
    await client.query("COMMIT");
    const ms = performance.now() - t0;
    const size = await client.query<{ n: string }>("SELECT pg_database_size(current_database()) AS n");
    return { ms, plans: list.length, rssMb: peakRssMb(), dbBytes: Number(size.rows[0]?.n ?? 0) };
  } finally {
    client.release();
    await store.close();
  }
}
