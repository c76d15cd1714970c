/**
 * The store as the commands that write and the daemon open it: opened (and migrated), then
 * cleaned of what dead processes left behind (their sync runs marked failed, their spool files
 * removed). The one place that does both; read-only commands open store/open.ts directly.
 */
import type { DatabaseTarget } from "./config/index.js";
import type { Logger } from "./log.js";
import { openStore, type Store } from "./store/open.js";
import { cleanUpAfterDeadProcesses } from "./sync/housekeeping.js";

export type { Store };

export interface WorkOptions {
  logger: Logger;
  /** sync.leaseMs: how long a silent run may still be alive (absent: the default lease). */
  leaseMs?: number | undefined;
}

export async function openStoreForWork(target: DatabaseTarget, opts: WorkOptions): Promise<Store> {
  const store = await openStore(target);
  try {
    await cleanUpAfterDeadProcesses(store, opts.logger, opts.leaseMs);
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
