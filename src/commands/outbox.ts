/** Commands over the push outbox: push-failures, retry-failed, resume-push, set-parent-id. */
import { queueReady } from "../push/settle.js";
import { openStore } from "../store/open.js";
import type { OutboxRow } from "../store/port-outbox.js";
import { withPushQueue } from "./push-env.js";
import { formatTable } from "./table.js";
import { type Command, intFlag, UsageError } from "./types.js";

export const pushFailuresCommand: Command = {
  name: "push-failures",
  summary: "list failed push rows (or rows waiting for a parent's id) with their reasons",
  help: `Usage: tas-sync push-failures [--code CODE] [--blocked] [--limit N] [--json] [--config PATH]

Lists rows of scenario_requests with status failed: key, project, name, reason code, the
last error, and where the row came from (file:line). With --blocked, lists instead the rows
that wait for their parent's scenario id (the parent exists on the service but the answer to
its create was lost); give it with tas-sync set-parent-id.

Options:
  --code CODE      only this reason code (e.g. PROJECT_NOT_FOUND, PARENT_FAILED)
  --blocked        rows waiting for a parent's id instead of failed rows
  --limit N        at most N rows (default 100)
  --json           one JSON object per row (snake_case keys)`,
  options: {
    code: { type: "string" },
    blocked: { type: "boolean" },
    limit: { type: "string" },
    json: { type: "boolean" },
  },
  run: async (ctx) => {
    const store = await openStore(ctx.config().database);
    try {
      const rows = await store.outbox.rowsWithStatus(ctx.flags.blocked ? "blocked" : "failed", {
        code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
        limit: intFlag(ctx.flags, "limit") ?? 100,
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
  },
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
    }),
};

export const setParentIdCommand: Command = {
  name: "set-parent-id",
  summary: "give a scenario's id when its create answer was lost, so its children get created",
  help: `Usage: tas-sync set-parent-id KEY ID [--config PATH]

A row ends "exists" when the service created its scenario but the answer (with the new id)
was lost. Its children cannot be created without that id: they wait (status blocked, reason
PARENT_ID_UNKNOWN; see tas-sync push-failures --blocked). Look the scenario up in the
service by its project and name, then give its id here: the row records it and its waiting
children are queued (the daemon or push --wait creates them).

Exit codes: 0 recorded; 2 no such row, or the row is not one that exists without an id.`,
  options: {},
  positionals: 2,
  run: (ctx) => {
    const [key, idText] = ctx.positionals;
    if (!key || !idText)
      throw new UsageError("expected KEY and ID, e.g. tas-sync set-parent-id suite-1 48213");
    const id = Number(idText);
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new UsageError(`ID must be a positive integer, got "${idText}"`);
    return withPushQueue(ctx.config(), ctx.logger, async ({ store, queue }) => {
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
  },
};

export const resumePushCommand: Command = {
  name: "resume-push",
  summary: "resume the push queue after it was paused (token refused)",
  help: `Usage: tas-sync resume-push [--config PATH]

The push queue pauses itself when the service refuses the token even after
re-authenticating. Fix the credentials in the config, then run this.`,
  options: {},
  run: (ctx) =>
    withPushQueue(ctx.config(), ctx.logger, async ({ queue }) => {
      await queue.queue.resume();
      ctx.out("push queue resumed");
      return 0;
    }),
};
