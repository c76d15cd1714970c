/** `tas-sync daemon`: job schedulers + workers on Redis, until SIGINT/SIGTERM. */
import { formatDuration } from "../config/index.js";
import { keysToRequeue } from "../push/submit.js";
import { assertRedis, safeRedisUrl } from "../queue/connection.js";
import { PushQueue } from "../queue/push.js";
import { SyncQueue } from "../queue/sync.js";
import { createClients } from "../runtime.js";
import { openStore } from "../store/open.js";
import { cleanUpAfterDeadProcesses } from "../sync/housekeeping.js";
import type { Command } from "./types.js";

const RECONCILE_MS = 60_000;

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
    const store = await openStore(cfg.database);
    await cleanUpAfterDeadProcesses(store, ctx.logger);
    const clients = createClients(cfg, ctx.logger);
    const sync = ctx.flags["no-sync"] ? null : new SyncQueue({ cfg, store, clients, logger: ctx.logger });
    const push = ctx.flags["no-push"]
      ? null
      : new PushQueue({ cfg, outbox: store.outbox, clients, logger: ctx.logger });
    try {
      if (sync) {
        await sync.schedule();
        sync.startWorker();
      }
      let reconciler: NodeJS.Timeout | undefined;
      if (push) {
        const requeue = async () => {
          const keys = await keysToRequeue(store.outbox, new Date().toISOString());
          await push.enqueue(keys);
          return keys.length;
        };
        const keys = await requeue();
        push.startWorker();
        if (keys) ctx.logger.info({ rows: keys }, "re-queued push rows left by an earlier run");
        // Now and then, give a job to any row left queued without one (job ids make this a
        // no-op for rows that have theirs), and queue children whose parent got created.
        reconciler = setInterval(() => {
          requeue().catch((err: Error) =>
            ctx.logger.warn({ err: err.message }, "re-queue of push rows failed"),
          );
        }, RECONCILE_MS);
      }
      ctx.logger.info(
        {
          redis: safeRedisUrl(cfg.redisUrl),
          companies: cfg.companies.map((c) => c.id),
          every: formatDuration(cfg.sync.every),
        },
        "daemon started",
      );
      await new Promise<void>((resolve) => {
        if (ctx.stopSignal.aborted) resolve();
        ctx.stopSignal.addEventListener("abort", () => resolve(), { once: true });
      });
      clearInterval(reconciler);
      ctx.logger.info("stopping: waiting for running jobs to finish");
      return 0;
    } finally {
      await sync?.close();
      await push?.close();
      await clients.close();
      await store.close();
    }
  },
};
