/**
 * One sync of a company at a time, across processes and machines: a lease in the store that
 * its holder renews while it works. A holder on this host whose process is gone is taken over
 * at once; any other holder only once its lease has expired (it stopped renewing).
 */
import { randomUUID } from "node:crypto";
import type { Lease, Owner, RunStore } from "../store/port-runs.js";
import { isGoneHere } from "./owner.js";

export const LEASE_MS = 60_000;

export type Held = { ok: true; token: string } | { ok: false; holder: Lease };

export async function takeLease(
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
