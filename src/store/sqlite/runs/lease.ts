/** A company's lease in sync_state: who may sync it now. */
import type { syncState } from "../../../schema/sqlite/index.js";
import type { Lease, LeaseResult } from "../../port-runs.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";

type LeaseRow = Pick<
  typeof syncState.$inferSelect,
  "leaseToken" | "leaseHost" | "leasePid" | "leaseExpiresAt"
>;

export function acquireLease(
  sqlite: Sqlite,
  companyId: number,
  lease: Lease,
  now: string,
  canTake: (holder: Lease) => boolean,
): LeaseResult {
  return sqlite
    .transaction((): LeaseResult => {
      const row = prepared(
        sqlite,
        `SELECT lease_token AS leaseToken, lease_host AS leaseHost, lease_pid AS leasePid,
           lease_expires_at AS leaseExpiresAt FROM sync_state WHERE company_id = ?`,
      ).get(companyId) as LeaseRow | undefined;
      if (row?.leaseToken && row.leaseExpiresAt && row.leaseExpiresAt > now) {
        const holder: Lease = {
          token: row.leaseToken,
          owner: { host: row.leaseHost ?? "?", pid: row.leasePid ?? 0 },
          expiresAt: row.leaseExpiresAt,
        };
        if (!canTake(holder)) return { ok: false, holder };
      }
      prepared(
        sqlite,
        `INSERT INTO sync_state (company_id, lease_token, lease_host, lease_pid, lease_expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(company_id) DO UPDATE SET lease_token = excluded.lease_token, lease_host = excluded.lease_host,
           lease_pid = excluded.lease_pid, lease_expires_at = excluded.lease_expires_at`,
      ).run(companyId, lease.token, lease.owner.host, lease.owner.pid, lease.expiresAt);
      return { ok: true };
    })
    .immediate();
}

export function renewLease(sqlite: Sqlite, companyId: number, token: string, expiresAt: string): boolean {
  return (
    prepared(
      sqlite,
      "UPDATE sync_state SET lease_expires_at = ? WHERE company_id = ? AND lease_token = ?",
    ).run(expiresAt, companyId, token).changes > 0
  );
}

export function releaseLease(sqlite: Sqlite, companyId: number, token: string): void {
  prepared(
    sqlite,
    `UPDATE sync_state SET lease_token = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL
     WHERE company_id = ? AND lease_token = ?`,
  ).run(companyId, token);
}
