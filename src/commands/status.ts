/** `tas-sync status` (spec in catalog/service.ts): freshness, queue states, outbox counts; exit 3 when unhealthy. */
import type { Config } from "../config/index.js";
import type { HeldCompany, StatusCounts } from "../push/operations.js";
import { assertRedis } from "../queue/connection.js";
import { inspectQueues, type QueuesSnapshot } from "../queue/inspect.js";
import { openStore, type Store } from "../store/open.js";
import { type CompanyFreshness, freshness } from "../sync/freshness.js";
import { formatTable } from "./table.js";
import type { CommandContext, CommandRun } from "./types.js";

interface Report {
  companies: CompanyFreshness[];
  queues: QueuesSnapshot | { error: string };
  outbox: StatusCounts;
  reasons: { code: string; n: number }[];
  /** Companies whose rows are held (credentials refused), and why. */
  held: HeldCompany[];
  /** Schema changes not acknowledged yet, per company. */
  openChanges: Map<number, number>;
  /** When the report was read (overdue runs are measured against it). */
  now: Date;
  /** Records the newest sync rejected, per company (v_rejected_now). */
  rejectedNow: Map<number, number>;
}

export const runStatus: CommandRun = async (ctx) => {
  const cfg = ctx.config();
  const store = await openStore(cfg.database);
  let report: Report;
  try {
    report = await collect(ctx, store, cfg);
  } finally {
    await store.close();
  }
  if (ctx.flags.json) ctx.out(JSON.stringify(toJson(report), null, 2));
  else printText(ctx, report);
  return report.companies.some((c) => c.stale || c.failing) ? 3 : 0;
};

async function collect(ctx: CommandContext, store: Store, cfg: Config): Promise<Report> {
  const ids = cfg.companies.map((c) => c.id);
  const states = await store.runs.companyStates(ids);
  const now = new Date();
  const companies = freshness(cfg, states, now, new Date(0));
  let queues: Report["queues"];
  try {
    await assertRedis(cfg.redisUrl, 1000);
    queues = await inspectQueues(cfg, await ctx.logger());
  } catch (err) {
    queues = { error: (err as Error).message };
  }
  return {
    companies,
    queues,
    outbox: await store.outbox.counts(),
    reasons: await store.outbox.failureReasons(),
    held: await store.outbox.heldCompanies(),
    openChanges: await store.schema.openChanges(ids),
    now,
    rejectedNow: await store.runs.rejectedNow(ids),
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A scheduled run this far past its time has not started: no daemon, or one that is stuck. */
const OVERDUE_AFTER_MS = 60_000;

/** How long past its time a company's next run is (ms), or null when it is not overdue. */
function overdueMs(next: number | undefined, now: number): number | null {
  return next !== undefined && now - next > OVERDUE_AFTER_MS ? now - next : null;
}

/** "7m", "2h 5m", "3d 4h": a duration at a glance. */
function roughDuration(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${Math.max(1, m)}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  return h % 24 ? `${Math.floor(h / 24)}d ${h % 24}h` : `${Math.floor(h / 24)}d`;
}

/** No worker serves the queues: nothing runs the schedules or creates queued rows. */
function noDaemon(q: QueuesSnapshot): boolean {
  return q.workers.sync === 0 && q.workers.push === 0;
}

function toJson(r: Report) {
  const next = "error" in r.queues ? null : r.queues.nextSync;
  const now = r.now.getTime();
  return {
    healthy: !r.companies.some((c) => c.stale || c.failing),
    daemon:
      "error" in r.queues
        ? null
        : {
            running: !noDaemon(r.queues),
            sync_workers: r.queues.workers.sync,
            push_workers: r.queues.workers.push,
          },
    companies: r.companies.map((c) => ({
      company_id: c.companyId,
      stale: c.stale,
      failing: c.failing,
      stale_after_seconds: c.staleAfterMs / 1000,
      last_success_at: c.lastSuccessAt?.toISOString() ?? null,
      next_run_at: next ? iso(next.get(c.companyId)) : null,
      next_run_overdue: next ? overdueMs(next.get(c.companyId), now) !== null : null,
      open_schema_changes: r.openChanges.get(c.companyId) ?? 0,
      rejected_now: r.rejectedNow.get(c.companyId) ?? 0,
      last_run: c.lastRun && {
        run_id: c.lastRun.id,
        status: c.lastRun.status,
        started_at: c.lastRun.startedAt,
        finished_at: c.lastRun.finishedAt,
        ...c.lastRun.counts,
        error: c.lastRun.error,
      },
    })),
    queues:
      "error" in r.queues
        ? { error: r.queues.error }
        : Object.fromEntries(r.queues.queues.map((q) => [q.name, { paused: q.paused, jobs: q.counts }])),
    outbox: {
      ...r.outbox,
      failure_reasons: r.reasons,
      held_companies: r.held.map((h) => ({
        company_id: h.companyId,
        rows: h.rows,
        code: h.code,
        reason: h.message,
      })),
    },
  };
}

function printText(ctx: CommandContext, r: Report): void {
  const next = "error" in r.queues ? null : r.queues.nextSync;
  const now = r.now.getTime();
  const nextRun = (id: number) => {
    if (!next) return "unknown";
    const at = next.get(id);
    if (at === undefined) return "not scheduled";
    const late = overdueMs(at, now);
    return late === null ? (iso(at) as string) : `${iso(at)} OVERDUE by ${roughDuration(late)}`;
  };
  const rows = r.companies.map((c) => ({
    company: c.companyId,
    health: c.failing ? "FAILING" : c.stale ? "STALE" : "ok",
    last_run: c.lastRun ? `${c.lastRun.status} ${c.lastRun.startedAt}` : "never synced",
    counts: c.lastRun
      ? `+${c.lastRun.counts.inserted} ~${c.lastRun.counts.updated} -${c.lastRun.counts.deleted} !${c.lastRun.counts.rejected}`
      : "",
    rejected_now: r.rejectedNow.get(c.companyId) ?? 0,
    last_success: c.lastSuccessAt?.toISOString() ?? "never",
    next_run: nextRun(c.companyId),
  }));
  ctx.out(`companies:\n${formatTable(rows)}`);
  if (!("error" in r.queues) && noDaemon(r.queues)) {
    const overdue = r.companies.some((c) => overdueMs(next?.get(c.companyId), now) !== null);
    ctx.out(
      `  no daemon is running: no worker is connected to the queues, so ${overdue ? "the overdue runs above wait" : "scheduled syncs and queued push rows wait"} until tas-sync daemon runs`,
    );
  }
  for (const c of r.companies)
    if (c.lastRun?.error && c.lastRun.status !== "succeeded")
      ctx.out(`  company ${c.companyId}: ${c.lastRun.error}`);
  for (const c of r.companies) {
    const n = r.openChanges.get(c.companyId) ?? 0;
    if (n > 0)
      ctx.out(
        `  company ${c.companyId}: ${n} schema change(s) not acknowledged: tas-sync schema --changes --company ${c.companyId}`,
      );
  }
  if ("error" in r.queues) ctx.out(`\nqueues: unknown (${r.queues.error})`);
  else {
    ctx.out("\nqueues:");
    for (const q of r.queues.queues) {
      const counts = Object.entries(q.counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      const paused = q.paused ? (q.name === "push" ? " PAUSED (run tas-sync resume-push)" : " PAUSED") : "";
      ctx.out(`  ${q.name}:${paused} ${counts}`);
    }
  }
  const o = r.outbox;
  ctx.out(
    `\npush outbox: pending ${o.pending}, queued ${o.queued}, created ${o.created}, exists ${o.exists}, failed ${o.failed}, blocked ${o.blocked}, held ${o.held}`,
  );
  for (const x of r.reasons) ctx.out(`  failed ${x.code}: ${x.n}`);
  if (o.blocked) ctx.out("  blocked rows wait for their parent's id: tas-sync push-failures --blocked");
  for (const h of r.held) ctx.out(`  held, company ${h.companyId} (${h.rows} row(s)): ${h.message}`);
}
