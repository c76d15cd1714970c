/** What the push commands open (Redis check, store, API clients, push queue) and close. */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { assertRedis, safeRedisUrl } from "../queue/connection.js";
import { PushQueue } from "../queue/push.js";
import { RedisWatch } from "../queue/redis-watch.js";
import { type Clients, createClients } from "../runtime.js";
import { openStore } from "../store/open.js";
import type { Store } from "../store/port.js";
import { cleanUpAfterDeadProcesses } from "../sync/housekeeping.js";

export interface PushEnv {
  store: Store;
  clients: Clients;
  queue: PushQueue;
}

export async function withPushQueue<T>(
  cfg: Config,
  logger: Logger,
  use: (env: PushEnv) => Promise<T>,
): Promise<T> {
  await assertRedis(cfg.redisUrl);
  const store = await openStore(cfg.database);
  await cleanUpAfterDeadProcesses(store, logger, cfg.sync.leaseMs);
  const clients = createClients(cfg, logger);
  // A Redis outage during `push --wait`: one line when lost, one a minute, one when back.
  const watch = new RedisWatch(logger, safeRedisUrl(cfg.redisUrl));
  const queue = new PushQueue({ cfg, outbox: store.outbox, clients, logger, watch });
  try {
    return await use({ store, clients, queue });
  } finally {
    await queue.close();
    await clients.close();
    await store.close();
  }
}
