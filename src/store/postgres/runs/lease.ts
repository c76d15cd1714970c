/** A company's lease in sync_state: who may sync it now. */
import { and, eq } from "drizzle-orm";
import { syncState } from "../../../tables/postgres/index.js";
import type { Lease, LeaseResult } from "../../port-runs.js";
import { orm, unwrapped } from "../orm.js";
import type { Db, Pool } from "../pool.js";
import { transaction } from "../tx.js";

/** The row is locked (FOR UPDATE) while `canTake` decides: two takers cannot both win. */
export async function acquireLease(
  pool: Pool,
  companyId: number,
  lease: Lease,
  now: string,
  canTake: (holder: Lease) => boolean,
): Promise<LeaseResult> {
  return transaction(pool, (client) =>
    unwrapped(
      (async (): Promise<LeaseResult> => {
        const db = orm(client);
        // A row to lock, even for a company never seen (a concurrent insert waits for ours).
        await db.insert(syncState).values({ companyId }).onConflictDoNothing();
        const [row] = await db
          .select({
            token: syncState.leaseToken,
            host: syncState.leaseHost,
            pid: syncState.leasePid,
            expiresAt: syncState.leaseExpiresAt,
          })
          .from(syncState)
          .where(eq(syncState.companyId, companyId))
          .for("update");
        if (row?.token && row.expiresAt && row.expiresAt > now) {
          const holder: Lease = {
            token: row.token,
            owner: { host: row.host ?? "?", pid: row.pid ?? 0 },
            expiresAt: row.expiresAt,
          };
          if (!canTake(holder)) return { ok: false, holder };
        }
        await db
          .update(syncState)
          .set({
            leaseToken: lease.token,
            leaseHost: lease.owner.host,
            leasePid: lease.owner.pid,
            leaseExpiresAt: lease.expiresAt,
          })
          .where(eq(syncState.companyId, companyId));
        return { ok: true };
      })(),
    ),
  );
}

export async function renewLease(
  db: Db,
  companyId: number,
  token: string,
  expiresAt: string,
): Promise<boolean> {
  const rows = await unwrapped(
    orm(db)
      .update(syncState)
      .set({ leaseExpiresAt: expiresAt })
      .where(and(eq(syncState.companyId, companyId), eq(syncState.leaseToken, token)))
      .returning({ companyId: syncState.companyId }),
  );
  return rows.length > 0;
}

export async function releaseLease(db: Db, companyId: number, token: string): Promise<void> {
  await unwrapped(
    orm(db)
      .update(syncState)
      .set({ leaseToken: null, leaseHost: null, leasePid: null, leaseExpiresAt: null })
      .where(and(eq(syncState.companyId, companyId), eq(syncState.leaseToken, token))),
  );
}
