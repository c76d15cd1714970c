/** `tas-sync sync` (spec in catalog/pull.ts): one-shot pull of every configured company (no Redis). */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { openStoreForWork } from "../open-store.js";
import { createClients, type TransportClock } from "../runtime.js";
import { syncCompanies } from "../sync/companies.js";
import type { CompanySyncResult } from "../sync/company.js";
import { SyncProgressView } from "./sync-progress.js";
import { type CommandRun, configuredCompany, intFlag } from "./types.js";

export const runSync: CommandRun = async (ctx) => {
  const companyId = intFlag(ctx.flags, "company");
  return runSyncCommand(ctx.config(), {
    companyId,
    logger: await ctx.logger(),
    out: ctx.out,
    signal: ctx.stopSignal,
  });
};

export interface SyncCommandOptions {
  companyId?: number | undefined;
  logger: Logger;
  out: (line: string) => void;
  signal?: AbortSignal;
  /** Where progress goes (default stderr); null for none. */
  progress?: NodeJS.WriteStream | null;
  /** The HTTP transport's waits and clock (tests). */
  clock?: TransportClock;
}

/**
 * Exit codes: 0 all succeeded (or were skipped: another process syncs them), 1 a company
 * failed, 3 some company was only partly synced. (Stopped by a signal: the CLI exits 130/143.)
 */
export async function runSyncCommand(cfg: Config, opts: SyncCommandOptions): Promise<number> {
  const only = configuredCompany(cfg, opts.companyId);
  const companies = only === undefined ? cfg.companies : cfg.companies.filter((c) => c.id === only);
  const store = await openStoreForWork(cfg.database, { logger: opts.logger, leaseMs: cfg.sync.leaseMs });
  const clients = createClients(cfg, opts.logger, undefined, opts.clock);
  const stream = opts.progress === undefined ? process.stderr : opts.progress;
  const view = stream ? new SyncProgressView(stream, opts.logger) : null;
  let results: CompanySyncResult[];
  try {
    results = await syncCompanies(
      (id) => ({
        store,
        client: clients.clientFor(id),
        logger: opts.logger,
        leaseMs: cfg.sync.leaseMs,
        readAheadBytes: cfg.sync.readAheadBytes,
        schema: cfg.schema,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(view ? { onProgress: (p) => view.update(p) } : {}),
      }),
      companies.map((c) => ({ companyId: c.id, reportIds: c.reportIds, trigger: "cli" })),
      cfg.sync.concurrency,
      {
        onDone: (r) => view?.done(r.companyId),
        onResult: (r) => {
          opts.out(summaryLine(r));
          for (const e of r.errors) opts.out(`  ! ${e}`);
        },
      },
    );
  } finally {
    await clients.close();
    await store.close();
  }
  return exitCode(results);
}

export function exitCode(results: readonly CompanySyncResult[]): number {
  if (results.some((r) => r.status === "failed")) return 1;
  if (results.some((r) => r.status === "partial")) return 3;
  return 0;
}

export function summaryLine(r: CompanySyncResult): string {
  const c = r.counts;
  const run = r.runId === null ? "" : ` (run ${r.runId})`;
  return (
    `company ${r.companyId}: ${r.status} in ${(r.durationMs / 1000).toFixed(1)}s${run} - ` +
    `fetched ${c.fetched}, inserted ${c.inserted}, updated ${c.updated}, unchanged ${c.unchanged}, ` +
    `deleted ${c.deleted}, rejected ${c.rejected}` +
    (r.deletionsHeldBack === null ? "" : `; deletions held back (${r.deletionsHeldBack} plan(s))`)
  );
}
