/** Read-only views of the outbox: counts, failure reasons, rows of a status, inline parents. */
import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { OPEN, statusIn } from "../../../tables/outbox-states.js";
import { emptyStatusCounts, type OutboxRow, type StatusCounts } from "../../port-outbox.js";
import { orm } from "../orm.js";
import type { Db } from "../pool.js";
import { pluck } from "../sql.js";
import { t } from "./tables.js";

const ofBatch = (batchId: string | undefined) => (batchId === undefined ? undefined : eq(t.batchId, batchId));
/** Text sorts by code point, as in SQLite, whatever the database's collation. */
const byCodePoint = (text: unknown) => sql`${text} collate "C"`;

export async function statusCounts(db: Db, batchId?: string): Promise<StatusCounts> {
  const counts = emptyStatusCounts();
  const rows = await orm(db)
    .select({ status: t.status, n: count() })
    .from(t)
    .where(ofBatch(batchId))
    .groupBy(t.status);
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** Rows of a batch that go on by themselves (pending or queued). */
export async function unsettledCount(db: Db, batchId: string): Promise<number> {
  const [r] = await orm(db)
    .select({ n: count() })
    .from(t)
    .where(and(ofBatch(batchId), statusIn(t, OPEN)));
  return r?.n ?? 0;
}

export async function failureReasons(db: Db, batchId?: string): Promise<{ code: string; n: number }[]> {
  const code = sql<string>`coalesce(${t.errorCode}, 'UNKNOWN')`;
  return orm(db)
    .select({ code, n: count() })
    .from(t)
    .where(and(statusIn(t, ["failed"]), ofBatch(batchId)))
    .groupBy(code)
    .orderBy(desc(count()), asc(byCodePoint(code)));
}

export async function rowsWithStatus(
  db: Db,
  status: "failed" | "blocked" | "held",
  opts: { code?: string | undefined; limit: number },
): Promise<OutboxRow[]> {
  return orm(db)
    .select()
    .from(t)
    .where(and(eq(t.status, status), opts.code === undefined ? undefined : eq(t.errorCode, opts.code)))
    .orderBy(asc(t.updatedAt), asc(byCodePoint(t.key)))
    .limit(opts.limit);
}

/**
 * Integer ids (below 2^53) that rows give as `parent.id` of a scenario of this project and
 * name. Hand-written: PostgreSQL's JSON operators, which the query builder has no words for.
 */
export function inlineParentIds(db: Db, projectId: number, scenarioName: string): Promise<number[]> {
  return pluck<number>(
    db,
    `SELECT DISTINCT (p ->> 'id')::bigint FROM
       (SELECT payload_json::jsonb -> 'parent' AS p, project_id FROM scenario_requests
        WHERE payload_json LIKE '%"parent"%') r
     WHERE p ->> 'scenario_name' = $1
       AND CASE WHEN coalesce(jsonb_typeof(p -> 'project_id'), 'null') = 'null' THEN project_id = $2
           WHEN jsonb_typeof(p -> 'project_id') = 'number' THEN (p ->> 'project_id')::numeric = $2 ELSE false END
       AND jsonb_typeof(p -> 'id') = 'number' AND (p ->> 'id') ~ '^-?[0-9]{1,15}$'`,
    [scenarioName, projectId],
  );
}
