/**
 * Cleanup in a hook, bounded: a cleanup that hangs (a Redis that stopped answering, a pool
 * waiting for a stuck client) must not hold the hook for its whole timeout and fail the file.
 * What is not done in time is named on stderr; the sweep (test/global-setup.ts) removes the
 * databases and Redis keys left, once this process is gone.
 */
import { withDeadline } from "../../src/deadline.js";

/** Under the hooks' 60 s timeout, with room for the rest of a hook. */
export const CLEANUP_MS = 45_000;

export async function bounded(what: string, cleanup: () => Promise<unknown>, ms = CLEANUP_MS): Promise<void> {
  const o = await withDeadline(Promise.resolve().then(cleanup), ms);
  if (!o.settled) console.warn(`cleanup not done in ${ms} ms, left to the sweep: ${what}`);
  else if ("error" in o)
    console.warn(
      `cleanup failed, left to the sweep: ${what}: ${o.error instanceof Error ? o.error.message : String(o.error)}`,
    );
}
