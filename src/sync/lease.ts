/**
 * One sync of a company at a time, across processes and machines: a lease in the store that
 * its holder renews while it works. A holder on this host whose process is gone is taken over
 * at once; any other holder only once its lease has expired (it stopped renewing).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.js";
import type { Lease, Owner, RunStore } from "../store/port-runs.js";
import { isGoneHere } from "./owner.js";

export const LEASE_MS = 60_000;

export type Held = { ok: true; token: string } | { ok: false; holder: Lease };

async function takeLease(
  runs: RunStore,
  companyId: number,
  me: Owner,
  now: Date,
  leaseMs = LEASE_MS,
): Promise<Held> {
  const token = randomUUID();
  const lease: Lease = { token, owner: me, expiresAt: new Date(now.getTime() + leaseMs).toISOString() };
  const result = await runs.acquireLease(companyId, lease, now.toISOString(), (holder) =>
    isGoneHere(holder.owner, me),
  );
  return result.ok ? { ok: true, token } : result;
}

/** "host:pid until 12:00:05Z", for a log line or a summary. */
export function describeHolder(holder: Lease): string {
  return `${holder.owner.host}:${holder.owner.pid} (lease until ${holder.expiresAt})`;
}

/** A lease held for one run: renewed with the run's heartbeat until released. */
export interface HeldLease {
  /** Start renewing it, and beating the run's heartbeat, every leaseMs / 6. */
  beat(runId: number): void;
  /** Stop renewing and let the company go (best effort: an expired lease frees itself). */
  release(): Promise<void>;
}

export interface LeaseContext {
  runs: RunStore;
  companyId: number;
  owner: Owner;
  clock: () => Date;
  leaseMs: number;
  log: Logger;
}

/** Takes the company's lease, or says who holds it. */
export async function holdLease(
  ctx: LeaseContext,
): Promise<{ ok: true; lease: HeldLease } | { ok: false; holder: Lease }> {
  const { runs, companyId, clock, leaseMs, log } = ctx;
  const taken = await takeLease(runs, companyId, ctx.owner, clock(), leaseMs);
  if (!taken.ok) return taken;
  let timer: NodeJS.Timeout | undefined;
  let lost = false;
  const lease: HeldLease = {
    beat(runId) {
      timer = setInterval(() => {
        const now = clock();
        runs
          .heartbeat(runId, now.toISOString())
          .then(() =>
            runs.renewLease(companyId, taken.token, new Date(now.getTime() + leaseMs).toISOString()),
          )
          .then((ours) => {
            // Taken over after we stalled past the lease (a pause, a frozen VM): go on; the
            // store discards our snapshot if the other run applied a newer one first.
            if (!ours && !lost) {
              lost = true;
              log.warn(
                { runId },
                "the lease of this company was taken over by another process after a stall",
              );
            }
          })
          .catch((err: Error) => log.warn({ err: err.message }, "heartbeat of the sync run failed"));
      }, leaseMs / 6);
      timer.unref();
    },
    async release() {
      clearInterval(timer);
      await runs.releaseLease(companyId, taken.token).catch(() => {});
    },
  };
  return { ok: true, lease };
}
