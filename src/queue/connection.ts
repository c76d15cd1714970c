/** Redis connections for BullMQ, and a fast, clear failure when Redis is not there. */
import { Redis } from "ioredis";
import { UserError } from "../errors.js";
import { coalesceWrites } from "./coalesce.js";

/** Redis does not answer: the user's to fix (start it, or point redisUrl at it), but not a bad config: exit 1. */
export class RedisUnavailableError extends UserError {
  override name = "RedisUnavailableError";
  override readonly exitCode: number = 1;
}

/** The URL with any password hidden, for messages and logs. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable redis URL)";
  }
}

/** A connection as BullMQ workers need it (no per-command retry limit), writes coalesced. */
export function createRedis(url: string): Redis {
  return coalesceWrites(new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true }));
}

/** Ping Redis once, with a short timeout; throws a one-line error saying where and why. */
export async function assertRedis(url: string, timeoutMs = 3000): Promise<void> {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  // The socket's error (ECONNREFUSED, ENOTFOUND...) says why; connect() only says "Connection is closed."
  let cause: string | undefined;
  probe.on("error", (err: NodeJS.ErrnoException) => {
    cause ??= err.code ?? err.message;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    const code = cause ?? (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new RedisUnavailableError(
      `cannot reach Redis at ${safeRedisUrl(url)} (${code}); start Redis or set "redisUrl" in the config`,
    );
  } finally {
    // On a connection that already ended, disconnect() arms a 2 s timer that holds the process.
    if (probe.status !== "end") probe.disconnect();
  }
}
