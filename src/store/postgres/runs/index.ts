/** The PostgreSQL adapter of RunStore. */
import type { RunStore } from "../../port-runs.js";
import type { Pool, PoolClient } from "../pool.js";
import { transaction } from "../tx.js";
import { companyStates, rejectedNow, setAlertState } from "./company-states.js";
import { acquireLease, releaseLease, renewLease } from "./lease.js";
import { abandonRun, finishRun, heartbeat, openRuns, recordSyncError, startRun } from "./record.js";

export function postgresRuns(pool: Pool): RunStore {
  return {
    start: (r) => startRun(pool, r),
    heartbeat: (runId, at) => briefly(pool, (c) => heartbeat(c, runId, at), undefined),
    finish: (runId, end) => finishRun(pool, runId, end),
    recordError: (runId, e) => recordSyncError(pool, runId, e),
    open: () => openRuns(pool),
    abandon: (runId, at, reason) => abandonRun(pool, runId, at, reason),
    acquireLease: (companyId, lease, now, canTake) => acquireLease(pool, companyId, lease, now, canTake),
    renewLease: (companyId, token, expiresAt) =>
      briefly(pool, (c) => renewLease(c, companyId, token, expiresAt), true),
    releaseLease: (companyId, token) => releaseLease(pool, companyId, token),
    companyStates: (ids) => companyStates(pool, ids),
    rejectedNow: (ids) => rejectedNow(pool, ids),
    setAlertState: (companyId, expected, next, at) => setAlertState(pool, companyId, expected, next, at),
  };
}

/**
 * A heartbeat must not wait long for a row another transaction holds (an apply ending): try
 * for a moment, and when the lock is not had, skip this beat (`skipped`).
 */
async function briefly<T>(pool: Pool, write: (c: PoolClient) => Promise<T>, skipped: T): Promise<T> {
  try {
    return await transaction(pool, async (c) => {
      await c.query("SET LOCAL lock_timeout = '200ms'");
      return write(c);
    });
  } catch (err) {
    if ((err as { code?: string }).code === "55P03") return skipped;
    throw err;
  }
}
