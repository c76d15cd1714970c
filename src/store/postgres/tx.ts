/** One transaction on one client of the pool. */
import type { Pool, PoolClient } from "./pool.js";

/** Runs `fn` between BEGIN and COMMIT (ROLLBACK when it throws); `begin` may say more (READ ONLY). */
export async function transaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  begin = "BEGIN",
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    try {
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw err;
    }
  } catch (err) {
    broken ||= isConnectionError(err);
    throw err;
  } finally {
    // A client whose connection failed is not given back to the pool.
    client.release(broken);
  }
}

/** The error is the connection's (gone, reset), not the statement's: the client is unusable. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string" && /^(08|57P0)/.test(e.code)) return true;
  if (typeof e?.code === "string" && /^E[A-Z]+/.test(e.code)) return true; // ECONNRESET, EPIPE...
  return /Connection terminated|not queryable/i.test(e?.message ?? "");
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P03",
]);

/**
 * A first connection failed because the server does not answer (down, starting, unreachable):
 * not the config's to fix, unlike a refused password or an unknown host or database.
 */
export function isUnreachable(err: unknown): boolean {
  return (
    UNREACHABLE.has(String((err as { code?: unknown })?.code)) ||
    /timeout/i.test((err as Error)?.message ?? "")
  );
}

/** PostgreSQL asks to run the transaction again (deadlock, serialization failure). */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === "40P01" || code === "40001";
}
