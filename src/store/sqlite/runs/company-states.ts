/** Per company: its latest finished run, its latest success, and the newest snapshot applied. */
// Hand-written: a state row and its run per company, and a compare-and-set; the query builder
// says neither more clearly.
import type { CompanyRunState } from "../../port-runs.js";
import { type CompanyStateRow, companyStateOf } from "../../rows.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";

/**
 * One statement per company: its sync_state row names its newest finished run and holds the
 * start of its newest success (kept where a run ends, record.ts), so a company costs its state
 * row and one primary-key lookup however long the run history.
 */
export function companyStates(sqlite: Sqlite, companyIds: readonly number[]): CompanyRunState[] {
  const state = prepared(
    sqlite,
    `SELECT :company AS companyId, r.id, r.status, r.started_at AS startedAt, r.finished_at AS finishedAt,
       r.fetched, r.inserted, r.updated, r.unchanged, r.deleted, r.rejected, r.error,
       st.last_success_at AS lastSuccessAt, st.applied_started_at AS appliedStartedAt, st.alert_state AS alertState
     FROM (SELECT 1)
     LEFT JOIN sync_state st ON st.company_id = :company
     LEFT JOIN sync_runs r ON r.id = st.last_run_id`,
  );
  return companyIds.map((company) => companyStateOf(state.get({ company }) as CompanyStateRow));
}

export function setAlertState(
  sqlite: Sqlite,
  companyId: number,
  expected: string | null,
  next: string,
  at: string,
): boolean {
  return sqlite
    .transaction(() => {
      prepared(
        sqlite,
        "INSERT INTO sync_state (company_id) VALUES (?) ON CONFLICT(company_id) DO NOTHING",
      ).run(companyId);
      return (
        prepared(
          sqlite,
          "UPDATE sync_state SET alert_state = ?, alert_changed_at = ? WHERE company_id = ? AND alert_state IS ?",
        ).run(next, at, companyId, expected).changes > 0
      );
    })
    .immediate();
}
