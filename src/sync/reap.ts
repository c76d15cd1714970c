/**
 * Runs left `running` by a process that died (kill -9, power loss) are marked failed at the
 * next start of any command that writes, so they do not look alive forever. A run is dead
 * when its process on this host is gone, or when it has not beaten for STALE_MS (a process on
 * another host, or a pid reused since). Runs recorded before owners were (no owner) go after an hour.
 */
import type { Owner, RunStore } from "../store/port-runs.js";
import { LEASE_MS } from "./lease.js";
import { isGoneHere } from "./owner.js";

/**
 * How long a run may be silent before it counts as dead, for a lease of `leaseMs`: a live run
 * beats every sixth of its lease, so three missed leases mean its process is gone.
 */
export const staleAfterLease = (leaseMs: number) => 3 * leaseMs;

/** The same, for the default lease. */
export const STALE_MS = staleAfterLease(LEASE_MS);
const LEGACY_MS = 60 * 60_000;

export interface Reaped {
  runId: number;
  companyId: number;
  reason: string;
}

export async function reapDeadRuns(
  runs: RunStore,
  me: Owner,
  now: Date,
  staleMs = STALE_MS,
): Promise<Reaped[]> {
  const reaped: Reaped[] = [];
  for (const run of await runs.open()) {
    const beat = Date.parse(run.heartbeatAt ?? run.startedAt);
    const silentMs = now.getTime() - beat;
    let reason: string | null = null;
    if (run.owner && isGoneHere(run.owner, me))
      reason = `its process ${run.owner.host}:${run.owner.pid} is gone`;
    else if (run.owner && silentMs > staleMs)
      reason = `its process ${run.owner.host}:${run.owner.pid} has not been heard from for ${Math.round(silentMs / 1000)}s`;
    else if (!run.owner && silentMs > LEGACY_MS) reason = "the process ended before the run finished";
    if (reason === null) continue;
    const text = `abandoned: ${reason}`;
    if (await runs.abandon(run.id, now.toISOString(), text))
      reaped.push({ runId: run.id, companyId: run.companyId, reason: text });
  }
  return reaped;
}
