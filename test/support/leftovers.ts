/**
 * The sweep of this suite's leftovers: PostgreSQL databases named tas_test_* and Redis keys under
 * tas-test-* prefixes that a test made and could not remove (its worker killed on a timeout, the
 * run stopped with kill -9, a cleanup that hung). Only what this suite names that way, and only
 * when its maker is gone: a name with an owner (owner.ts) of this machine is dropped when that
 * process no longer runs, never while it does, so a run beside this one keeps its own. A name
 * without an owner (made before owners were written), or another machine's, is dropped once it
 * is older than `maxAgeMs`.
 */

import { Redis } from "ioredis";
import pg from "pg";
import { HOST, ownerAlive, ownerIn } from "./owner.js";

/** A name without an owner is a leftover when older than this: no run lasts that long. */
const UNOWNED_MAX_AGE_MS = 6 * 3_600_000;

export interface SweepOptions {
  now?: number;
  maxAgeMs?: number;
  /** Sweep only the names this accepts (tests of the sweep on a shared server). */
  only?: (name: string) => boolean;
  /** How long the whole sweep may take; what is left then waits for the next one. */
  timeoutMs?: number;
}

function isLeftover(name: string, ageMs: () => number | null, opts: SweepOptions): boolean {
  if (opts.only && !opts.only(name)) return false;
  const owner = ownerIn(name);
  // Another machine's run (a shared server): its processes cannot be asked, so by age.
  if (owner && owner.host === HOST) return !ownerAlive(owner);
  const age = ageMs();
  return age !== null && age > (opts.maxAgeMs ?? UNOWNED_MAX_AGE_MS);
}

/** Drops the leftover tas_test_* databases; returns their names. */
export async function sweepDatabases(adminUrl: string, opts: SweepOptions = {}): Promise<string[]> {
  const now = opts.now ?? Date.now();
  const client = new pg.Client({
    connectionString: adminUrl,
    connectionTimeoutMillis: 2000,
    statement_timeout: opts.timeoutMs ?? 20_000,
  });
  await client.connect();
  try {
    // A database's creation time: its PG_VERSION file's (a superuser may read it; else null).
    const { rows } = await client.query<{ name: string; created: Date | null }>(
      `SELECT datname AS name,
         CASE WHEN pg_has_role('pg_read_server_files', 'member')
           THEN (pg_stat_file('base/' || oid || '/PG_VERSION', true)).modification END AS created
       FROM pg_database WHERE datname LIKE 'tas\\_test\\_%'`,
    );
    const dropped: string[] = [];
    for (const { name, created } of rows) {
      if (!/^tas_test_[a-z0-9_]+$/.test(name)) continue;
      if (!isLeftover(name, () => (created ? now - created.getTime() : null), opts)) continue;
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      dropped.push(name);
    }
    return dropped;
  } finally {
    await client.end();
  }
}

/** Deletes the keys of leftover tas-test-* prefixes; returns the prefixes. */
export async function sweepRedis(url: string, opts: SweepOptions = {}): Promise<string[]> {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  await redis.connect();
  try {
    const byPrefix = new Map<string, string[]>();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", "tas-test-*", "COUNT", 1000);
      cursor = next;
      for (const key of keys) {
        const prefix = key.slice(0, key.indexOf(":") >>> 0);
        byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), key]);
      }
    } while (cursor !== "0");
    const swept: string[] = [];
    for (const [prefix, keys] of byPrefix) {
      // Without an owner: a prefix is old when none of its keys was touched for maxAgeMs.
      const idle = async () =>
        Math.min(...(await Promise.all(keys.map(async (k) => Number(await redis.object("IDLETIME", k))))));
      const idleMs = ownerIn(prefix)?.host === HOST ? 0 : (await idle()) * 1000;
      if (!isLeftover(prefix, () => idleMs, opts)) continue;
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
      swept.push(prefix);
    }
    return swept;
  } finally {
    redis.disconnect();
  }
}
