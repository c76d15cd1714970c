/** `tas-sync daemon`: job schedulers + workers on Redis, until SIGINT/SIGTERM. */
import { assertRedis, safeRedisUrl } from "../queue/connection.js";
import { PushQueue } from "../queue/push.js";
import { SyncQueue } from "../queue/sync.js";
import { createClients } from "../runtime.js";
import { openStore } from "../store/db.js";
import { queuedKeys, takeReady } from "../store/outbox.js";
import { failAbandonedRuns } from "../store/runs.js";
import type { Command } from "./types.js";

export const daemonCommand: Command = {
  name: "daemon",
  summary: "run the scheduled syncs and the push workers (BullMQ on Redis)",
  help: `Usage: tas-sync daemon [--no-sync] [--no-push] [--config PATH]

Keeps one BullMQ job scheduler per configured company (every sync.everyMinutes minutes)
and runs the sync worker and the push workers (push.concurrency, push.ratePerSecond shared
by every daemon on the same Redis). On start it re-queues push rows that an interrupted run
left queued. Stops gracefully on SIGINT/SIGTERM, letting running jobs finish.

Options:
  --no-sync        do not schedule or run syncs
  --no-push        do not run push workers`,
  options: { "no-sync": { type: "boolean" }, "no-push": { type: "boolean" } },
  run: async (ctx) => {
    const cfg = ctx.config();
    await assertRedis(cfg.redisUrl);
    const store = openStore(cfg.database);
    const now = new Date().toISOString();
    const abandoned = failAbandonedRuns(store.sqlite, now, now);
    if (abandoned) ctx.logger.warn({ abandoned }, "marked sync runs of an earlier, dead process as failed");
    const clients = createClients(cfg, ctx.logger);
    const sync = ctx.flags["no-sync"] ? null : new SyncQueue(cfg, clients, ctx.logger);
    const push = ctx.flags["no-push"]
      ? null
      : new PushQueue({ cfg, sqlite: store.sqlite, clients, logger: ctx.logger });
    try {
      if (sync) {
        await sync.schedule();
        sync.startWorker();
      }
      if (push) {
        const keys = [...queuedKeys(store.sqlite), ...takeReady(store.sqlite, now)];
        await push.enqueue(keys);
        push.startWorker();
        if (keys.length) ctx.logger.info({ rows: keys.length }, "re-queued push rows left by an earlier run");
      }
      ctx.logger.info(
        {
          redis: safeRedisUrl(cfg.redisUrl),
          companies: cfg.companies.map((c) => c.id),
          everyMinutes: cfg.sync.everyMinutes,
        },
        "daemon started",
      );
      await new Promise<void>((resolve) => {
        if (ctx.stopSignal.aborted) resolve();
        ctx.stopSignal.addEventListener("abort", () => resolve(), { once: true });
      });
      ctx.logger.info("stopping: waiting for running jobs to finish");
      return 0;
    } finally {
      await sync?.close();
      await push?.close();
      await clients.close();
      store.close();
    }
  },
};
