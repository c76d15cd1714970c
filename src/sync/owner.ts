/** This process as the owner of a run or a lease, and whether another local process is alive. */
import { hostname } from "node:os";
import type { Owner } from "../store/port-runs.js";

export function thisProcess(): Owner {
  return { host: hostname(), pid: process.pid };
}

/** Whether a process of this host is alive (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours to signal.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A holder on this host whose process is gone: its lease or run can be taken over at once. */
export function isGoneHere(owner: Owner | null, me: Owner): boolean {
  return owner !== null && owner.host === me.host && owner.pid !== me.pid && !isAlive(owner.pid);
}
