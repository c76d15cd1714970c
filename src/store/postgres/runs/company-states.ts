/** Per company: its latest finished run, its latest success, the newest snapshot applied, its alert state. */
// Hand-written: a join over unnest in its order, and a compare-and-set in one statement; the
// query builder says neither more clearly.
import type { CompanyRunState } from "../../port-runs.js";
import { type CompanyStateRow, companyStateOf } from "../../rows.js";
import type { Db } from "../pool.js";
import { run } from "../sql.js";

/**
 * One statement for all the companies (a daemon's probe asks for each of them): each company's
 * sync_state row names its newest finished run and holds the start of its newest success (kept
 * where a run ends, record.ts), so a company costs its state row and one primary-key lookup
 * however long the run history, instead of two searches of the history's indexes.
 */
export async function companyStates(db: Db, companyIds: readonly number[]): Promise<CompanyRunState[]> {
  const { rows } = await run<CompanyStateRow>(
    db,
    `SELECT c.id AS "companyId", r.id, r.status, r.started_at AS "startedAt", r.finished_at AS "finishedAt",
       r.fetched, r.inserted, r.updated, r.unchanged, r.deleted, r.rejected, r.error,
       st.last_success_at AS "lastSuccessAt", st.applied_started_at AS "appliedStartedAt", st.alert_state AS "alertState"
     FROM unnest($1::bigint[]) WITH ORDINALITY AS c(id, n)
     LEFT JOIN sync_state st ON st.company_id = c.id
     LEFT JOIN sync_runs r ON r.id = st.last_run_id
     ORDER BY c.n`,
    [companyIds],
  );
  return rows.map(companyStateOf);
}

/**
 * Compare and set in one statement: a company without a row gets one when null was expected;
 * otherwise the UPDATE takes the row's lock and, under READ COMMITTED, checks the state again
 * once a concurrent setter has committed, so of several callers expecting the same state one wins.
 */
export async function setAlertState(
  db: Db,
  companyId: number,
  expected: string | null,
  next: string,
  at: string,
): Promise<boolean> {
  const { rows } = await run<{ n: number }>(
    db,
    `WITH ins AS (
       INSERT INTO sync_state (company_id, alert_state, alert_changed_at)
       SELECT $1::bigint, $3::text, $4::timestamptz WHERE $2::text IS NULL
       ON CONFLICT (company_id) DO NOTHING RETURNING 1),
     upd AS (
       UPDATE sync_state SET alert_state = $3, alert_changed_at = $4
       WHERE company_id = $1 AND alert_state IS NOT DISTINCT FROM $2::text RETURNING 1)
     SELECT (SELECT count(*) FROM ins) + (SELECT count(*) FROM upd) AS n`,
    [companyId, expected, next, at],
  );
  return (rows[0]?.n ?? 0) > 0;
}
