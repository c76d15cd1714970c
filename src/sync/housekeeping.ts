/** What every command that writes does first: mark dead processes' runs failed, remove their spools. */
import type { Logger } from "../log.js";
import type { Store } from "../store/port.js";
import { LEASE_MS } from "./lease.js";
import { thisProcess } from "./owner.js";
import { reapDeadRuns, staleAfterLease } from "./reap.js";
import { removeDeadSpools } from "./spool.js";

export async function cleanUpAfterDeadProcesses(
  store: Store,
  logger: Logger,
  leaseMs = LEASE_MS,
  now = new Date(),
): Promise<void> {
  for (const r of await reapDeadRuns(store.runs, thisProcess(), now, staleAfterLease(leaseMs)))
    logger.warn({ runId: r.runId, companyId: r.companyId }, `sync run ${r.runId} marked failed: ${r.reason}`);
  const spools = removeDeadSpools();
  if (spools) logger.info({ spools }, "removed spool files of processes that died");
}
