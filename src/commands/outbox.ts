/** Commands over the push outbox (specs in catalog/push.ts): push-failures, retry-failed, resume-push, set-parent-id. */
import type { OutboxRow } from "../push/operations.js";
import { resumeHeld, retryFailed, setParentId } from "../push/operations.js";
import { openStore } from "../store/open.js";
import { escapeControls } from "../text/escape.js";
import { wrapText } from "../text/wrap.js";
import { withPushQueue } from "./push-env.js";
import { formatTable } from "./table.js";
import { atLeast, type CommandRun, configuredCompany, intFlag, UsageError } from "./types.js";

export const runPushFailures: CommandRun = async (ctx) => {
  const limit = atLeast(ctx.flags, "limit", 1) ?? 100;
  if (ctx.flags.blocked && ctx.flags.held) throw new UsageError("give --blocked or --held, not both");
  const status = ctx.flags.blocked ? "blocked" : ctx.flags.held ? "held" : "failed";
  const store = await openStore(ctx.config().database);
  try {
    const rows = await store.outbox.rowsWithStatus(status, {
      code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
      limit,
    });
    if (ctx.flags.json) for (const r of rows) ctx.out(JSON.stringify(rowJson(r)));
    else {
      ctx.out(ctx.flags.wide ? wideTable(rows) : wrappedTable(rows, process.stdout.columns));
      // Rows that wait for their credentials are not failures, but nobody should miss them.
      if (status !== "held")
        for (const h of await store.outbox.heldCompanies())
          ctx.out(`held: company ${h.companyId}, ${h.rows} row(s): ${h.message} (list them: --held)`);
    }
    return 0;
  } finally {
    await store.close();
  }
};

function cells(r: OutboxRow) {
  return {
    key: r.key,
    company: r.companyId,
    project: r.projectId,
    code: r.errorCode,
    attempts: r.attempts,
    source: r.sourceFile ? `${r.sourceFile}:${r.sourceLine}` : null,
  };
}

/** One line per row, the whole reason last (--wide: for grep and wide windows). */
function wideTable(rows: OutboxRow[]): string {
  return formatTable(
    rows.map((r) => ({ ...cells(r), error: r.lastError })),
    Number.MAX_SAFE_INTEGER,
  );
}

/** Each row's line, then its whole reason below it, indented and wrapped to the terminal. */
export function wrappedTable(rows: OutboxRow[], columns: number | undefined): string {
  const table = formatTable(rows.map(cells), 80);
  if (rows.length === 0) return table;
  const [header, rule, ...lines] = table.split("\n");
  const width = Math.min(Math.max(columns ?? 100, 40), 160);
  const out = [header as string, rule as string];
  lines.forEach((line, i) => {
    out.push(line);
    const reason = rows[i]?.lastError;
    if (reason) out.push(...wrapText(escapeControls(reason), width, "    "));
  });
  return out.join("\n");
}

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
  withPushQueue(ctx.config(), await ctx.logger(), async ({ ops }) => {
    const { reset, queued } = await retryFailed(ops, {
      code: typeof ctx.flags.code === "string" ? ctx.flags.code : undefined,
      key: typeof ctx.flags.key === "string" ? ctx.flags.key : undefined,
    });
    ctx.out(
      `${reset} failed row(s) back to pending; ${queued} queued now (the daemon or push --wait creates them)`,
    );
    return 0;
  });

export const runSetParentId: CommandRun = async (ctx) => {
  const [key, idText] = ctx.positionals;
  if (!key || !idText) throw new UsageError("expected KEY and ID, e.g. tas-sync set-parent-id suite-1 48213");
  const id = Number(idText);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new UsageError(`ID must be a positive integer, got "${idText}"`);
  return withPushQueue(ctx.config(), await ctx.logger(), async ({ ops }) => {
    const { queued } = await setParentId(ops, key, id);
    ctx.out(`row ${key} has scenario id ${id}; ${queued} waiting row(s) queued`);
    return 0;
  });
};

export const runResumePush: CommandRun = async (ctx) => {
  const cfg = ctx.config();
  const companyId = configuredCompany(cfg, intFlag(ctx.flags, "company"));
  return withPushQueue(cfg, await ctx.logger(), async ({ queue, ops }) => {
    const { released, queued } = await resumeHeld(ops, companyId);
    const whose = companyId === undefined ? "" : ` of company ${companyId}`;
    ctx.out(
      `${released} held row(s)${whose} go on; ${queued} queued now (the daemon or push --wait creates them)`,
    );
    if (await queue.queue.isPaused()) {
      await queue.queue.resume();
      ctx.out("push queue resumed");
    }
    return 0;
  });
};
