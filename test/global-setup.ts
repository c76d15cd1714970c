/**
 * vitest globalSetup: before the run, and again after it, removes this suite's leftovers whose
 * maker is gone (test/support/leftovers.ts): databases and Redis keys of a worker killed on a
 * timeout, of a cleanup that hung, of a run stopped with kill -9. A run beside this one keeps
 * its own. Never fails the run: without PostgreSQL or Redis (unit tests alone) it says nothing.
 */
import { withDeadline } from "../src/deadline.js";
import { sweepDatabases, sweepRedis } from "./support/leftovers.js";
import { PG_URL } from "./support/postgres.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const SWEEP_MS = 30_000;

async function sweep(when: string): Promise<void> {
  const [databases, prefixes] = await Promise.all([
    withDeadline(sweepDatabases(PG_URL, { timeoutMs: SWEEP_MS }), SWEEP_MS),
    withDeadline(sweepRedis(REDIS_URL), SWEEP_MS),
  ]);
  const n = (o: typeof databases | typeof prefixes) => (o.settled && "value" in o ? o.value.length : 0);
  if (n(databases) + n(prefixes) > 0)
    console.log(
      `${when}: removed the leftovers of test processes that are gone: ${n(databases)} database(s), ${n(prefixes)} Redis prefix(es)`,
    );
}

export async function setup(): Promise<() => Promise<void>> {
  await sweep("before the tests");
  return () => sweep("after the tests");
}
