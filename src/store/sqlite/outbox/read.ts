/** Read-only views of the outbox: counts, failure reasons, rows of a status, inline parents. */
import { and, asc, count, desc, eq, type SQL, sql } from "drizzle-orm";
import { OPEN, statusIn } from "../../../tables/outbox-states.js";
import { emptyStatusCounts, type OutboxRow, type StatusCounts } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { orm, t } from "./tables.js";

const ofBatch = (batchId: string | undefined) => (batchId === undefined ? undefined : eq(t.batchId, batchId));

export function statusCounts(sqlite: Sqlite, batchId?: string): StatusCounts {
  const counts = emptyStatusCounts();
  const rows = orm(sqlite)
    .select({ status: t.status, n: count() })
    .from(t)
    .where(ofBatch(batchId))
    .groupBy(t.status)
    .all();
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** Rows of a batch that go on by themselves (pending or queued). */
export function unsettledCount(sqlite: Sqlite, batchId: string): number {
  return (
    orm(sqlite)
      .select({ n: count() })
      .from(t)
      .where(and(ofBatch(batchId), statusIn(t, OPEN)))
      .get()?.n ?? 0
  );
}

export function failureReasons(sqlite: Sqlite, batchId?: string): { code: string; n: number }[] {
  const code = sql<string>`coalesce(${t.errorCode}, 'UNKNOWN')`;
  return orm(sqlite)
    .select({ code, n: count() })
    .from(t)
    .where(and(statusIn(t, ["failed"]), ofBatch(batchId)))
    .groupBy(code)
    .orderBy(desc(count()), asc(code))
    .all();
}

export function rowsWithStatus(
  sqlite: Sqlite,
  status: "failed" | "blocked" | "held",
  opts: { code?: string | undefined; limit: number },
): OutboxRow[] {
  return orm(sqlite)
    .select()
    .from(t)
    .where(and(eq(t.status, status), opts.code === undefined ? undefined : eq(t.errorCode, opts.code)))
    .orderBy(asc(t.updatedAt), asc(t.key))
    .limit(opts.limit)
    .all();
}

/** Integer ids that rows give as `parent.id` of a scenario of this project and name (SQLite's JSON functions). */
export function inlineParentIds(sqlite: Sqlite, projectId: number, scenarioName: string): number[] {
  const at = (path: string): SQL => sql`json_extract(${t.payloadJson}, ${path})`;
  const id = sql<number>`${at("$.parent.id")}`;
  return orm(sqlite)
    .selectDistinct({ id })
    .from(t)
    .where(
      and(
        sql`${at("$.parent.scenario_name")} = ${scenarioName}`,
        sql`coalesce(${at("$.parent.project_id")}, ${t.projectId}) = ${projectId}`,
        sql`typeof(${at("$.parent.id")}) = 'integer'`,
      ),
    )
    .all()
    .map((r) => r.id);
}
