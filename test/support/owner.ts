/**
 * Who made a test database or a Redis prefix: the process's id and its start time, written into
 * the name (`tas_test_p1234t98765_…`, `tas-test-p1234t98765-…`), so that a sweep can tell the
 * leftovers of a process that is gone (a worker killed on a timeout, a run stopped with kill -9)
 * from what a live run (this one, or another beside it) is using. The start time (clock ticks
 * since boot, /proc/PID/stat) tells a process from a later one that got the same id.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** The start time of a process (clock ticks since boot), or null when it is not running. */
export function startTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, and is another user's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This machine, in four hex digits: a process id means something only on its own machine. */
export const HOST = createHash("sha1").update(hostname()).digest("hex").slice(0, 4);

/** This process, as written into the names it makes: p<pid>t<start ticks>h<host>. */
export const OWNER = `p${process.pid}t${startTicks(process.pid) ?? "0"}h${HOST}`;

export interface Owner {
  pid: number;
  ticks: string;
  host: string;
}

/** The owner written into a name made by this module, or null for any other name. */
export function ownerIn(name: string): Owner | null {
  const m = /^tas[-_]test[-_]p(\d+)t(\d+)h([0-9a-f]{4})[-_]/.exec(name);
  return m ? { pid: Number(m[1]), ticks: m[2] ?? "", host: m[3] ?? "" } : null;
}

/**
 * Is the process that made a name still running (the same process, not a later one with its
 * id)? Only asked of this machine's processes (`owner.host === HOST`).
 */
export function ownerAlive(owner: Pick<Owner, "pid" | "ticks">): boolean {
  const ticks = startTicks(owner.pid);
  // Without /proc (not Linux), the id alone; ticks "0" were written where /proc was missing.
  if (ticks === null) return owner.ticks === "0" && processAlive(owner.pid);
  return ticks === owner.ticks;
}

/** A fresh BullMQ key prefix for one test: tas-test-<owner>-<uuid>. */
export function testPrefix(): string {
  return `tas-test-${OWNER}-${randomUUID()}`;
}

/** A fresh PostgreSQL database name: tas_test_<owner>_<random> (at most 63 characters). */
export function testDatabaseName(): string {
  return `tas_test_${OWNER}_${randomBytes(5).toString("hex")}`;
}
