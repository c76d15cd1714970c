/** What the push commands open (Redis check, store, API clients, push queue, reconciler) and close. */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { openStoreForWork, type Store } from "../open-store.js";
import type { PushOps } from "../push/operations.js";
import { PushReconciler } from "../push/reconcile.js";
import { assertRedis, safeRedisUrl } from "../queue/connection.js";
import { PushQueue } from "../queue/push.js";
import { RedisWatch } from "../queue/redis-watch.js";
import { type Clients, createClients } from "../runtime.js";

export interface PushEnv {
  store: Store;
  clients: Clients;
  queue: PushQueue;
  /** push/'s operations, on this store and queue. */
  ops: PushOps;
}

export async function withPushQueue<T>(
  cfg: Config,
  logger: Logger,
  use: (env: PushEnv) => Promise<T>,
): Promise<T> {
  await assertRedis(cfg.redisUrl);
  const store = await openStoreForWork(cfg.database, { logger, leaseMs: cfg.sync.leaseMs });
  const clients = createClients(cfg, logger);
  // A Redis outage during `push --wait`: one line when lost, one a minute, one when back.
  const watch = new RedisWatch(logger, safeRedisUrl(cfg.redisUrl));
  const queue = new PushQueue({ cfg, outbox: store.outbox, clients, logger, watch });
  const reconciler = new PushReconciler(store.outbox, queue, logger);
  try {
    return await use({ store, clients, queue, ops: { outbox: store.outbox, jobs: queue, reconciler } });
  } finally {
    reconciler.stop();
    await queue.close();
    await clients.close();
    await store.close();
  }
}
