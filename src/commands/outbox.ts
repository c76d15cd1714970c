/** Commands over the push outbox (specs in catalog/push.ts): push-failures, retry-failed, resume-push, set-parent-id. */
import { queueReady } from "../push/settle.js";
import { openStore } from "../store/open.js";
import type { OutboxRow } from "../store/port-outbox.js";
import { withPushQueue } from "./push-env.js";
import { formatTable } from "./table.js";
import { atLeast, type CommandRun, UsageError } from "./types.js";

export const runPushFailures: CommandRun = async (ctx) => {
  const limit = atLeast(ctx.flags, "limit", 1) ?? 100;
  const store = await openStore(ctx.config().database);
  try {
    const rows = await store.outbox.rowsWithStatus(ctx.flags.blocked ? "blocked" : "failed", {
      code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
      limit,
    });
    if (ctx.flags.json) for (const r of rows) ctx.out(JSON.stringify(rowJson(r)));
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
    await store.close();
  }
};

function rowJson(r: OutboxRow) {
  return {
    key: r.key,
    company_id: r.companyId,
    project_id: r.projectId,
    scenario_name: r.scenarioName,
    parent_key: r.parentKey,
    status: r.status,
    attempts: r.attempts,
    error_code: r.errorCode,
    last_error: r.lastError,
    source_file: r.sourceFile,
    source_line: r.sourceLine,
    updated_at: r.updatedAt,
  };
}

export const runRetryFailed: CommandRun = async (ctx) =>
  withPushQueue(ctx.config(), await ctx.logger(), async ({ store, queue }) => {
    const now = new Date().toISOString();
    const reset = await store.outbox.resetFailed(
      {
        code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
        key: typeof ctx.flags.key === "string" ? ctx.flags.key : undefined,
      },
      now,
    );
    const ready = await queueReady(store.outbox, now);
    await queue.forget(ready);
    await queue.enqueue(ready);
    ctx.out(
      `${reset.length} failed row(s) back to pending; ${ready.length} queued now (the daemon or push --wait creates them)`,
    );
    return 0;
  });

export const runSetParentId: CommandRun = async (ctx) => {
  const [key, idText] = ctx.positionals;
  if (!key || !idText) throw new UsageError("expected KEY and ID, e.g. tas-sync set-parent-id suite-1 48213");
  const id = Number(idText);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new UsageError(`ID must be a positive integer, got "${idText}"`);
  return withPushQueue(ctx.config(), await ctx.logger(), async ({ store, queue }) => {
    const now = new Date().toISOString();
    const row = await store.outbox.get(key);
    if (!row) throw new UsageError(`no push row with key "${key}"`);
    if (!(await store.outbox.learnId(key, id, "user", now))) {
      const why =
        row.status === "exists"
          ? `it already has scenario id ${row.scenarioId}`
          : row.status === "blocked" && row.parentKey
            ? `it is the one waiting; give its parent's key, ${row.parentKey}`
            : `its status is ${row.status}, not exists`;
      throw new UsageError(`row "${key}" does not wait for an id: ${why}`);
    }
    const ready = await queueReady(store.outbox, now);
    await queue.enqueue(ready);
    ctx.out(`row ${key} has scenario id ${id}; ${ready.length} waiting row(s) queued`);
    return 0;
  });
};

export const runResumePush: CommandRun = async (ctx) =>
  withPushQueue(ctx.config(), await ctx.logger(), async ({ queue }) => {
    await queue.queue.resume();
    ctx.out("push queue resumed");
    return 0;
  });
