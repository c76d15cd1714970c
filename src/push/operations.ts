/**
 * What people do to a push after the fact, as push/ decides it: retry failed rows, give a row
 * the id of a scenario that exists, release the rows of a company whose credentials work
 * again. Each changes the outbox, then lets the one reconciler queue what is ready now.
 */
import { UserError } from "../errors.js";
import type { OutboxStore } from "../store/port-outbox.js";

/** The outbox's shapes the commands print. */
export type { HeldCompany, OutboxRow, StatusCounts } from "../store/port-outbox.js";

import type { PushJobs, PushReconciler } from "./reconcile.js";

export interface PushOps {
  outbox: OutboxStore;
  jobs: PushJobs;
  reconciler: PushReconciler;
  now?: () => Date;
}

const stamp = (ops: PushOps) => (ops.now?.() ?? new Date()).toISOString();

/** Failed rows (of a code, or one key) back to pending, and queued where ready. */
export async function retryFailed(
  ops: PushOps,
  filter: { code?: string | undefined; key?: string | undefined },
): Promise<{ reset: number; queued: number }> {
  const reset = await ops.outbox.resetFailed(filter, stamp(ops));
  // Their jobs ended (failed for good, or settled): anything left of them is removed first.
  await ops.jobs.forget(reset);
  const { ready } = await ops.reconciler.requeue();
  return { reset: reset.length, queued: ready };
}

/** `set-parent-id KEY ID` on a row that is not waiting for an id. */
class NotWaitingForIdError extends UserError {
  override name = "NotWaitingForIdError";
}

/** A row that exists without a known id learns it; the rows waiting for it are queued. */
export async function setParentId(ops: PushOps, key: string, id: number): Promise<{ queued: number }> {
  const row = await ops.outbox.get(key);
  if (!row) throw new NotWaitingForIdError(`no push row with key "${key}"`);
  if (!(await ops.outbox.learnId(key, id, "user", stamp(ops)))) {
    const why =
      row.status === "exists"
        ? `it already has scenario id ${row.scenarioId}`
        : row.status === "blocked" && row.parentKey
          ? `it is the one waiting; give its parent's key, ${row.parentKey}`
          : `its status is ${row.status}, not exists`;
    throw new NotWaitingForIdError(`row "${key}" does not wait for an id: ${why}`);
  }
  const { ready } = await ops.reconciler.requeue();
  return { queued: ready };
}

/** Held rows (of one company, or all) go on now, queued where ready. */
export async function resumeHeld(
  ops: PushOps,
  companyId: number | undefined,
): Promise<{ released: number; queued: number }> {
  const released = await ops.outbox.release(companyId, stamp(ops));
  const { ready } = await ops.reconciler.requeue({ filter: companyId === undefined ? {} : { companyId } });
  return { released, queued: ready };
}
