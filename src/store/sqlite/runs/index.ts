/** The SQLite adapter of RunStore. */
import type { RunStore } from "../../port-runs.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";
import { companyStates, setAlertState } from "./company-states.js";
import { acquireLease, releaseLease, renewLease } from "./lease.js";
import { abandonRun, finishRun, heartbeat, openRuns, recordSyncError, startRun } from "./record.js";

export function sqliteRuns(sqlite: Sqlite): RunStore {
  return {
    start: async (run) => startRun(sqlite, run),
    heartbeat: async (runId, at) =>
      withShortBusyTimeout(sqlite, () => heartbeat(sqlite, runId, at), undefined),
    finish: async (runId, end) => finishRun(sqlite, runId, end),
    recordError: async (runId, e) => recordSyncError(sqlite, runId, e),
    open: async () => openRuns(sqlite),
    abandon: async (runId, at, reason) => abandonRun(sqlite, runId, at, reason),
    acquireLease: async (companyId, lease, now, canTake) =>
      acquireLease(sqlite, companyId, lease, now, canTake),
    renewLease: async (companyId, token, expiresAt) =>
      withShortBusyTimeout(sqlite, () => renewLease(sqlite, companyId, token, expiresAt), true),
    releaseLease: async (companyId, token) => releaseLease(sqlite, companyId, token),
    companyStates: async (ids) => companyStates(sqlite, ids),
    rejectedNow: async (ids) => {
      const out = new Map<number, number>(ids.map((c) => [c, 0]));
      // v_rejected_now counted from each company's state row: an index search per company. The
      // view itself, grouped, is planned as a walk of the whole rejected_records index (100,000
      // old rows: 8 ms, where this takes 0.02 ms; bench:age's status).
      const rows = prepared(
        sqlite,
        `SELECT st.company_id AS c, (SELECT count(*) FROM rejected_records rr
           WHERE rr.company_id = st.company_id AND rr.last_run_id = st.rejections_run_id) AS n
         FROM sync_state st WHERE st.rejections_run_id IS NOT NULL`,
      ).all() as { c: number; n: number }[];
      for (const r of rows) if (out.has(r.c)) out.set(r.c, r.n);
      return out;
    },
    setAlertState: async (companyId, expected, next, at) =>
      setAlertState(sqlite, companyId, expected, next, at),
  };
}

/**
 * A heartbeat must not stall the event loop while another process holds the write lock (a
 * sync's apply takes seconds): try briefly, and on SQLITE_BUSY skip this beat (`skipped`).
 */
function withShortBusyTimeout<T>(sqlite: Sqlite, write: () => T, skipped: T): T {
  const previous = sqlite.pragma("busy_timeout", { simple: true }) as number;
  sqlite.pragma("busy_timeout = 200");
  try {
    return write();
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_BUSY") return skipped;
    throw err;
  } finally {
    sqlite.pragma(`busy_timeout = ${previous}`);
  }
}
