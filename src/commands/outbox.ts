/** Commands over the push outbox: status, push-failures, retry-failed, resume-push. */
import { assertRedis } from "../queue/connection.js";
import { OwnedQueue } from "../queue/owned-queue.js";
import { PUSH_QUEUE } from "../queue/push.js";
import { openStore } from "../store/db.js";
import { failedRows, failureReasons, resetFailed, statusCounts, takeReady } from "../store/outbox.js";
import { withPushQueue } from "./push-env.js";
import { formatTable } from "./table.js";
import { type Command, intFlag } from "./types.js";

export const statusCommand: Command = {
  name: "status",
  summary: "show the push outbox counts and the latest sync run of each company",
  help: `Usage: tas-sync status [--config PATH]

Prints the scenario_requests counts by status (pending, queued, created, exists, failed),
failures by reason, whether the push queue is paused (when Redis answers), and the latest
sync run of every configured company.`,
  options: {},
  run: async (ctx) => {
    const cfg = ctx.config();
    const store = openStore(cfg.database);
    try {
      const c = statusCounts(store.sqlite);
      ctx.out(
        `push outbox: pending ${c.pending}, queued ${c.queued}, created ${c.created}, exists ${c.exists}, failed ${c.failed}`,
      );
      for (const r of failureReasons(store.sqlite)) ctx.out(`  failed ${r.code}: ${r.n}`);
      try {
        await assertRedis(cfg.redisUrl, 1000);
        // Only the queue's state is read: no worker, no API clients.
        const queue = new OwnedQueue(PUSH_QUEUE, cfg, ctx.logger);
        const paused = await queue.queue.isPaused();
        const jobs = await queue.queue.getJobCounts("waiting", "active", "delayed");
        await queue.close();
        ctx.out(
          `push queue: ${paused ? "PAUSED (run tas-sync resume-push)" : "running"}; jobs waiting ${jobs.waiting}, active ${jobs.active}, delayed ${jobs.delayed}`,
        );
      } catch (err) {
        ctx.out(`push queue: unknown (${(err as Error).message})`);
      }
      const latest = store.sqlite.prepare(
        `SELECT id AS run_id, status, started_at, finished_at, fetched, inserted, updated, unchanged, deleted, rejected
         FROM sync_runs WHERE company_id = ? ORDER BY id DESC LIMIT 1`,
      );
      // Every configured company, including one never synced yet.
      const runs = cfg.companies.map(
        (c) =>
          ({
            company_id: c.id,
            ...((latest.get(c.id) as object | undefined) ?? { status: "never synced" }),
          }) as Record<string, unknown>,
      );
      ctx.out(`\nlatest sync runs:\n${formatTable(runs)}`);
      return 0;
    } finally {
      store.close();
    }
  },
};

export const pushFailuresCommand: Command = {
  name: "push-failures",
  summary: "list failed push rows with their reasons",
  help: `Usage: tas-sync push-failures [--code CODE] [--limit N] [--json] [--config PATH]

Lists rows of scenario_requests with status failed: key, project, name, reason code, the
last error, and where the row came from (file:line).

Options:
  --code CODE      only this reason code (e.g. PROJECT_NOT_FOUND, PARENT_FAILED)
  --limit N        at most N rows (default 100)
  --json           one JSON object per row`,
  options: { code: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
  run: async (ctx) => {
    const store = openStore(ctx.config().database);
    try {
      const rows = failedRows(store.sqlite, {
        code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
        limit: intFlag(ctx.flags, "limit") ?? 100,
      });
      if (ctx.flags.json) for (const r of rows) ctx.out(JSON.stringify(r));
      else
        ctx.out(
          formatTable(
            rows.map((r) => ({
              key: r.key,
              project: r.projectId,
              code: r.errorCode,
              attempts: r.attempts,
              error: r.lastError,
              source: r.sourceFile ? `${r.sourceFile}:${r.sourceLine}` : null,
            })),
            80,
          ),
        );
      return 0;
    } finally {
      store.close();
    }
  },
};

export const retryFailedCommand: Command = {
  name: "retry-failed",
  summary: "queue failed push rows again",
  help: `Usage: tas-sync retry-failed [--code CODE] [--key KEY] [--config PATH]

Moves failed rows back to pending and queues them (children again wait for their parent).
A row whose earlier attempt may have reached the service keeps that knowledge, so a name
clash on retry still counts as "exists", never as a duplicate.

Options:
  --code CODE      only rows that failed with this reason code
  --key KEY        only this row`,
  options: { code: { type: "string" }, key: { type: "string" } },
  run: (ctx) =>
    withPushQueue(ctx.config(), ctx.logger, async ({ store, queue }) => {
      const now = new Date().toISOString();
      const reset = resetFailed(
        store.sqlite,
        {
          code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
          key: typeof ctx.flags.key === "string" ? ctx.flags.key : undefined,
        },
        now,
      );
      const ready = takeReady(store.sqlite, now);
      await queue.forget(ready);
      await queue.enqueue(ready);
      ctx.out(
        `${reset.length} failed row(s) back to pending; ${ready.length} queued now (the daemon or push --wait creates them)`,
      );
      return 0;
    }),
};

export const resumePushCommand: Command = {
  name: "resume-push",
  summary: "resume the push queue after it was paused (token refused)",
  help: `Usage: tas-sync resume-push [--config PATH]

The push queue pauses itself when the service refuses the token even after one
re-authentication. Fix the credentials in the config, then run this.`,
  options: {},
  run: (ctx) =>
    withPushQueue(ctx.config(), ctx.logger, async ({ queue }) => {
      await queue.queue.resume();
      ctx.out("push queue resumed");
      return 0;
    }),
};
