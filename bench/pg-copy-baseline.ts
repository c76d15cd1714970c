/**
 * The PostgreSQL baseline of bench:sync: the rows a full sync writes (plans, child tables,
 * mobile apps, versions), as COPY text built in advance, loaded by one COPY per table in one
 * transaction. No validation, no hashing, no statement per batch: the database's own speed.
 */
import type { PgTable } from "drizzle-orm/pg-core";
import * as t from "../src/schema/postgres/index.js";
import { copyTable, copyText } from "../src/store/postgres/copy.js";
import type { Pool } from "../src/store/postgres/pool.js";
import type { BaselineInput } from "./raw-baseline.js";

/** Lines per chunk of COPY text (one string each). */
const CHUNK = 1000;

export interface CopyInput {
  statement: string;
  chunks: string[];
}

/** Builds (untimed) the COPY text of every table. */
export function copyInputs(rows: readonly BaselineInput[], now: string): CopyInput[] {
  const out: CopyInput[] = [];
  const add = <T extends PgTable>(table: T, all: Partial<T["$inferInsert"]>[], omit: string[] = []) => {
    const c = copyTable(table, omit);
    const chunks: string[] = [];
    for (let i = 0; i < all.length; i += CHUNK)
      chunks.push(
        all
          .slice(i, i + CHUNK)
          .map((r) => c.line(r))
          .join(""),
      );
    out.push({ statement: c.statement, chunks });
  };
  const n = rows.map((r) => r.normalized);
  add(
    t.plans,
    rows.map(({ text, hash, normalized }) => ({
      ...normalized.plan,
      rawJson: text,
      contentHash: hash,
      firstSeenAt: now,
      lastSeenAt: now,
    })),
  );
  add(
    t.planDaysOfWeek,
    n.flatMap((p) => p.days),
  );
  add(
    t.planResolutions,
    n.flatMap((p) => p.resolutions),
  );
  add(
    t.planEnvironments,
    n.flatMap((p) => p.environments),
  );
  add(
    t.planScenarios,
    n.flatMap((p) => p.scenarios),
  );
  add(
    t.planAlerts,
    n.flatMap((p) => p.alerts),
  );
  add(
    t.planFetchAppFiles,
    n.flatMap((p) => p.fetchAppFiles),
  );
  // Shared by many plans: each app once (a primary key), as the sync writes them.
  const apps = new Map(n.flatMap((p) => p.mobileApps).map((a) => [a.id, a]));
  add(t.mobileApps, [...apps.values()]);
  add(
    t.planMobileApps,
    n.flatMap((p) => p.planMobileApps),
  );
  add(
    t.planVersions,
    rows.map(({ text, hash, normalized }) => ({
      id: normalized.plan.id,
      contentHash: hash,
      validFrom: now,
      rawJson: text,
      runId: 1,
    })),
    ["versionId"],
  );
  return out;
}

/** The timed part: one COPY per table, one transaction. Returns ms. */
export async function runCopyBaseline(pool: Pool, inputs: readonly CopyInput[]): Promise<number> {
  const client = await pool.connect();
  try {
    const t0 = performance.now();
    await client.query("BEGIN");
    for (const { statement, chunks } of inputs) await copyText(client, statement, chunks);
    await client.query("COMMIT");
    return performance.now() - t0;
  } finally {
    client.release();
  }
}
