/** Per company: its latest run, its latest success, and the newest snapshot applied. */
import type { syncRuns, syncState } from "../../../schema/sqlite/index.js";
import type { CompanyRunState } from "../../port-runs.js";
import type { Sqlite } from "../connection.js";
import { plucked, prepared } from "../prepared.js";

type LatestRow = Pick<
  typeof syncRuns.$inferSelect,
  | "id"
  | "status"
  | "startedAt"
  | "finishedAt"
  | "fetched"
  | "inserted"
  | "updated"
  | "unchanged"
  | "deleted"
  | "rejected"
  | "error"
>;
type StateRow = Pick<typeof syncState.$inferSelect, "appliedStartedAt" | "alertState">;

export function companyStates(sqlite: Sqlite, companyIds: readonly number[]): CompanyRunState[] {
  const latest = prepared(
    sqlite,
    `SELECT id, status, started_at AS startedAt, finished_at AS finishedAt, fetched, inserted, updated, unchanged,
       deleted, rejected, error FROM sync_runs WHERE company_id = ? AND status <> 'running'
     ORDER BY id DESC LIMIT 1`,
  );
  const success = plucked(
    sqlite,
    "SELECT max(started_at) FROM sync_runs WHERE company_id = ? AND status = 'succeeded'",
  );
  const state = prepared(
    sqlite,
    "SELECT applied_started_at AS appliedStartedAt, alert_state AS alertState FROM sync_state WHERE company_id = ?",
  );
  return companyIds.map((companyId) => {
    const r = latest.get(companyId) as LatestRow | undefined;
    const st = state.get(companyId) as StateRow | undefined;
    return {
      companyId,
      lastRun: r
        ? {
            id: r.id,
            status: r.status,
            startedAt: r.startedAt,
            finishedAt: r.finishedAt,
            counts: {
              fetched: r.fetched,
              inserted: r.inserted,
              updated: r.updated,
              unchanged: r.unchanged,
              deleted: r.deleted,
              rejected: r.rejected,
            },
            error: r.error,
          }
        : null,
      lastSuccessAt: (success.get(companyId) as string | null | undefined) ?? null,
      appliedStartedAt: st?.appliedStartedAt ?? null,
      alertState: st?.alertState ?? null,
    };
  });
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
