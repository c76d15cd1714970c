/**
 * `tas-sync daemon`: job schedulers and workers on Redis, the HTTP server (health, readiness,
 * metrics, Bull Board), freshness alerts, and what Redis coming back empty needs. Wiring only:
 * every part is its own module; this starts them in order and stops them in reverse.
 */

import { WebhookSender } from "../alerts/webhook.js";
import type { Config } from "../config/index.js";
import { formatDuration, maskUrl, staleAfterOf, syncEveryOf } from "../config/index.js";
import { withDeadline } from "../deadline.js";
import type { Logger } from "../log.js";
import { Metrics } from "../metrics.js";
import { openStoreForWork } from "../open-store.js";
import { PushFailureLog } from "../push/failure-log.js";
import { PushReconciler } from "../push/reconcile.js";
import { assertRedis, safeRedisUrl } from "../queue/connection.js";
import { readQueueState } from "../queue/inspect.js";
import type { OwnedQueue } from "../queue/owned-queue.js";
import { PushQueue } from "../queue/push.js";
import { RedisWatch } from "../queue/redis-watch.js";
import { SyncQueue } from "../queue/sync.js";
import { createClients } from "../runtime.js";
import { assertServerExposure, type RunningServer, startServer } from "../server/index.js";
import { freshness } from "../sync/freshness.js";
import { withDriftAlerts } from "./drift-alerts.js";
import { FreshnessMonitor } from "./freshness-monitor.js";
import { homeView } from "./home.js";
import { Pruner } from "./pruner.js";
import { readinessProbe } from "./readiness.js";

export interface DaemonRoles {
  sync: boolean;
  push: boolean;
  server: boolean;
}

export interface DaemonOptions {
  logger: Logger;
  roles: DaemonRoles;
  /** Aborted on SIGINT/SIGTERM: stop taking jobs, let running ones finish, exit. */
  stop: AbortSignal;
  /** Told once the daemon is up (tests wait for it). */
  onStarted?: (info: { server: RunningServer | null }) => void;
}

export async function runDaemon(cfg: Config, opts: DaemonOptions): Promise<number> {
  const { logger, roles } = opts;
  if (roles.server) assertServerExposure(cfg.server);
  await assertRedis(cfg.redisUrl);
  const started = new Date();
  const store = await openStoreForWork(cfg.database, { logger, leaseMs: cfg.sync.leaseMs });
  const watch = new RedisWatch(logger, safeRedisUrl(cfg.redisUrl));
  const states = async () =>
    freshness(cfg, await store.runs.companyStates(cfg.companies.map((c) => c.id)), new Date(), started);
  const queues: OwnedQueue[] = [];
  const metrics = new Metrics({
    freshness: states,
    queueCounts: async () => {
      if (!watch.up) throw new Error("Redis is unreachable");
      return Promise.all(
        queues.map(async (q) => ({ queue: q.name, counts: (await readQueueState(q)).counts })),
      );
    },
    onCollectError: (metric, err) =>
      logger.debug({ metric, err: err instanceof Error ? err.message : String(err) }, "metric not collected"),
  });
  const hook = cfg.alerts.webhookUrl;
  // One sender for every alert (health changes and schema drift): sent one after another.
  const sender = hook ? new WebhookSender({ url: hook, timeoutMs: cfg.alerts.timeoutMs, logger }) : null;
  const telemetry = withDriftAlerts(metrics, { sender, logger });
  const clients = createClients(cfg, logger, telemetry);
  // Aborted when the grace period of a stop is over: running syncs end cancelled, writing nothing.
  const abandon = new AbortController();
  const sync = roles.sync
    ? new SyncQueue({ cfg, store, clients, logger, telemetry, signal: abandon.signal, watch })
    : null;
  const push = roles.push
    ? new PushQueue({ cfg, outbox: store.outbox, clients, logger, telemetry, watch })
    : null;
  if (sync) queues.push(sync);
  if (push) queues.push(push);
  const reconciler = push
    ? new PushReconciler(store.outbox, push, logger, undefined, new PushFailureLog(store.outbox, logger))
    : null;
  const monitor = sync ? new FreshnessMonitor({ cfg, store, logger, states, sender }) : null;
  // Retention once a day, by the daemons that sync (whose runs make the bookkeeping).
  const pruner = sync ? new Pruner({ retention: cfg.retention, store, logger, metrics }) : null;
  let server: RunningServer | null = null;
  try {
    if (sync) {
      await sync.schedule();
      sync.startWorker();
    }
    if (push && reconciler) {
      // Held companies are probed at once too: their credentials may have been fixed meanwhile.
      await reconciler.requeue({ probe: true, message: "re-queued push rows left by an earlier run" });
      push.startWorker();
      reconciler.start(cfg.push.reconcileEveryMs, {
        probe: true,
        message: "re-queued push rows that had no job, or probed held companies",
      });
    }
    // Redis may come back empty (no persistence): schedulers and jobs must be made again.
    watch.onReconnect(() => {
      sync
        ?.schedule()
        .catch((err: Error) => logger.warn({ err: err.message }, "could not recreate the schedulers"));
      reconciler?.requeue({ message: "re-queued push rows after Redis came back" }).catch(() => {});
    });
    monitor?.start();
    pruner?.start();
    if (roles.server) {
      const probe = readinessProbe({
        redis: watch,
        pingRedis: () => (queues[0] ? queues[0].ping() : assertRedis(cfg.redisUrl, 1500)),
        store,
        queues,
        freshness: states,
      });
      server = await startServer({
        host: cfg.server.host,
        port: cfg.server.port,
        ...(cfg.server.username && cfg.server.password
          ? { auth: { username: cfg.server.username, password: cfg.server.password } }
          : {}),
        metrics,
        readiness: probe,
        home: homeView({ cfg, store, freshness: states, sync, redisUp: () => watch.up }),
        queues: queues.map((q) => q.queue),
        dashboardWritable: cfg.server.dashboardWritable,
        allowedHosts: cfg.server.allowedHosts,
        logger,
      });
    }
    logger.info(
      {
        database: cfg.database.dialect === "postgres" ? maskUrl(cfg.database.display) : cfg.database.display,
        redis: safeRedisUrl(cfg.redisUrl),
        queuePrefix: cfg.queuePrefix,
        roles: Object.entries(roles)
          .filter(([, on]) => on)
          .map(([role]) => role),
        server: server?.url ?? null,
        // Each company's own schedule: a company's `every` overrides sync.every.
        companies: cfg.companies.map((c) => ({
          id: c.id,
          every: formatDuration(syncEveryOf(cfg, c)),
          staleAfter: formatDuration(staleAfterOf(cfg, c)),
        })),
      },
      "daemon started",
    );
    opts.onStarted?.({ server });
    await new Promise<void>((resolve) => {
      if (opts.stop.aborted) resolve();
      opts.stop.addEventListener("abort", () => resolve(), { once: true });
    });
    logger.info(
      { graceMs: cfg.shutdownGraceMs },
      "stopping: taking no new jobs; waiting for running ones to finish",
    );
    return 0;
  } finally {
    reconciler?.stop();
    await pruner?.stop();
    // Alerts still being delivered get a few seconds, not the whole of their retries.
    if (monitor) await withDeadline(monitor.stop(), 5000);
    const graceOver = () => {
      logger.warn("grace period over: abandoning running jobs (a sync in progress writes nothing)");
      abandon.abort();
    };
    await Promise.all(queues.map((q) => q.close(cfg.shutdownGraceMs, graceOver)));
    // The last syncs' drift alerts, if any, get the same few seconds.
    if (sender) await withDeadline(sender.flush(), 5000);
    await server?.close();
    await clients.close();
    await store.close();
    logger.info("daemon stopped");
  }
}
