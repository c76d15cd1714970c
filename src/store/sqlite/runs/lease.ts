/** A company's lease in sync_state: who may sync it now. */
import { and, eq } from "drizzle-orm";
import { syncState } from "../../../tables/sqlite/index.js";
import type { Lease, LeaseResult } from "../../port-runs.js";
import type { Sqlite } from "../connection.js";
import { orm } from "../orm.js";

/** In one IMMEDIATE transaction: two takers cannot both win. */
export function acquireLease(
  sqlite: Sqlite,
  companyId: number,
  lease: Lease,
  now: string,
  canTake: (holder: Lease) => boolean,
): LeaseResult {
  const db = orm(sqlite);
  return sqlite
    .transaction((): LeaseResult => {
      const row = db
        .select({
          token: syncState.leaseToken,
          host: syncState.leaseHost,
          pid: syncState.leasePid,
          expiresAt: syncState.leaseExpiresAt,
        })
        .from(syncState)
        .where(eq(syncState.companyId, companyId))
        .get();
      if (row?.token && row.expiresAt && row.expiresAt > now) {
        const holder: Lease = {
          token: row.token,
          owner: { host: row.host ?? "?", pid: row.pid ?? 0 },
          expiresAt: row.expiresAt,
        };
        if (!canTake(holder)) return { ok: false, holder };
      }
      const taken = {
        leaseToken: lease.token,
        leaseHost: lease.owner.host,
        leasePid: lease.owner.pid,
        leaseExpiresAt: lease.expiresAt,
      };
      db.insert(syncState)
        .values({ companyId, ...taken })
        .onConflictDoUpdate({ target: syncState.companyId, set: taken })
        .run();
      return { ok: true };
    })
    .immediate();
}

export function renewLease(sqlite: Sqlite, companyId: number, token: string, expiresAt: string): boolean {
  return (
    orm(sqlite)
      .update(syncState)
      .set({ leaseExpiresAt: expiresAt })
      .where(and(eq(syncState.companyId, companyId), eq(syncState.leaseToken, token)))
      .run().changes > 0
  );
}

export function releaseLease(sqlite: Sqlite, companyId: number, token: string): void {
  orm(sqlite)
    .update(syncState)
    .set({ leaseToken: null, leaseHost: null, leasePid: null, leaseExpiresAt: null })
    .where(and(eq(syncState.companyId, companyId), eq(syncState.leaseToken, token)))
    .run();
}
