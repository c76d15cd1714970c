/**
 * /readyz: ready when Redis answers, the database answers, and each worker is consuming. A
 * BullMQ worker has been known to stop taking jobs after a Redis restart while reporting itself
 * running (bullmq #4479, #4585), so "consuming" is judged by what it does: jobs waiting, free
 * slots, and none taken for STARVING_MS means it is not consuming.
 */
import { withDeadline } from "../deadline.js";
import type { Consumption, OwnedQueue } from "../queue/owned-queue.js";
import type { RedisWatch } from "../queue/redis-watch.js";
import type { Readiness, ReadinessCheck } from "../server/index.js";
import type { Store } from "../store/port.js";
import type { CompanyFreshness } from "../sync/freshness.js";

/** Above BullMQ's drainDelay (5 s) plus a rate-limit wait; a healthy worker takes a job sooner. */
export const STARVING_MS = 15_000;
const PROBE_MS = 1500;

export interface ReadinessDeps {
  redis: RedisWatch;
  /** A command that needs Redis to answer (a PING); rejects when it does not. */
  pingRedis: () => Promise<unknown>;
  store: Store;
  queues: OwnedQueue[];
  freshness: () => Promise<CompanyFreshness[]>;
  now?: () => number;
}

/** Whether a worker with these jobs waiting is taking them (pure). */
export function consuming(c: Consumption, waiting: number, paused: boolean, now: number): ReadinessCheck {
  if (paused) return { ok: true, detail: "paused" };
  if (waiting === 0 || c.active >= c.concurrency) return { ok: true };
  const idleMs = c.lastTakenAt === null ? Number.POSITIVE_INFINITY : now - c.lastTakenAt;
  if (idleMs <= STARVING_MS) return { ok: true };
  const since = c.lastTakenAt === null ? "since it started" : `for ${Math.round(idleMs / 1000)} s`;
  return { ok: false, detail: `${waiting} job(s) waiting and none taken ${since}` };
}

export function readinessProbe(deps: ReadinessDeps): () => Promise<Readiness> {
  const now = deps.now ?? Date.now;
  return async () => {
    const checks: Record<string, ReadinessCheck> = {};
    checks.redis = deps.redis.up
      ? await probe(deps.pingRedis)
      : {
          ok: false,
          detail: `unreachable for ${Math.round((now() - (deps.redis.downSince ?? now())) / 1000)} s: ${deps.redis.lastError}`,
        };
    checks.database = await probe(() => deps.store.ping());
    for (const q of deps.queues) {
      if (!q.worker) continue;
      if (!checks.redis.ok) {
        checks[`${q.name}_worker`] = { ok: false, detail: "Redis is unreachable" };
        continue;
      }
      const [waiting, paused] = await Promise.all([q.queue.getWaitingCount(), q.queue.isPaused()]);
      checks[`${q.name}_worker`] = consuming(q.consumption(), waiting, paused, now());
    }
    const companies = (await deps.freshness()).map((c) => ({
      company_id: c.companyId,
      stale: c.stale,
      failing: c.failing,
      last_success_at: c.lastSuccessAt?.toISOString() ?? null,
    }));
    return { ok: Object.values(checks).every((c) => c.ok), checks, companies };
  };
}

async function probe(fn: () => Promise<unknown>): Promise<ReadinessCheck> {
  const o = await withDeadline(fn(), PROBE_MS);
  if (!o.settled) return { ok: false, detail: `no answer within ${PROBE_MS} ms` };
  if ("error" in o)
    return { ok: false, detail: o.error instanceof Error ? o.error.message : String(o.error) };
  return { ok: true };
}
