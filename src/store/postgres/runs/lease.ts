/** A company's lease in sync_state: who may sync it now. */
import type { Lease, LeaseResult } from "../../port-runs.js";
import type { Db, Pool } from "../pool.js";
import { run } from "../sql.js";
import { transaction } from "../tx.js";

interface LeaseRow {
  token: string | null;
  host: string | null;
  pid: number | null;
  expiresAt: string | null;
}

/** The row is locked (FOR UPDATE) while `canTake` decides: two takers cannot both win. */
export async function acquireLease(
  pool: Pool,
  companyId: number,
  lease: Lease,
  now: string,
  canTake: (holder: Lease) => boolean,
): Promise<LeaseResult> {
  return transaction(pool, async (client): Promise<LeaseResult> => {
    // A row to lock, even for a company never seen (a concurrent insert waits for ours).
    await run(client, "INSERT INTO sync_state (company_id) VALUES ($1) ON CONFLICT (company_id) DO NOTHING", [
      companyId,
    ]);
    const { rows } = await run<LeaseRow>(
      client,
      `SELECT lease_token AS token, lease_host AS host, lease_pid AS pid, lease_expires_at AS "expiresAt"
       FROM sync_state WHERE company_id = $1 FOR UPDATE`,
      [companyId],
    );
    const row = rows[0];
    if (row?.token && row.expiresAt && row.expiresAt > now) {
      const holder: Lease = {
        token: row.token,
        owner: { host: row.host ?? "?", pid: row.pid ?? 0 },
        expiresAt: row.expiresAt,
      };
      if (!canTake(holder)) return { ok: false, holder };
    }
    await run(
      client,
      `UPDATE sync_state SET lease_token = $2, lease_host = $3, lease_pid = $4, lease_expires_at = $5
       WHERE company_id = $1`,
      [companyId, lease.token, lease.owner.host, lease.owner.pid, lease.expiresAt],
    );
    return { ok: true };
  });
}

export async function renewLease(
  db: Db,
  companyId: number,
  token: string,
  expiresAt: string,
): Promise<boolean> {
  const { rowCount } = await run(
    db,
    "UPDATE sync_state SET lease_expires_at = $1 WHERE company_id = $2 AND lease_token = $3",
    [expiresAt, companyId, token],
  );
  return rowCount > 0;
}

export async function releaseLease(db: Db, companyId: number, token: string): Promise<void> {
  await run(
    db,
    `UPDATE sync_state SET lease_token = NULL, lease_host = NULL, lease_pid = NULL, lease_expires_at = NULL
     WHERE company_id = $1 AND lease_token = $2`,
    [companyId, token],
  );
}
