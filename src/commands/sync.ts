/** `tas-sync sync`: one-shot pull of every configured company (no Redis). */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { createClients } from "../runtime.js";
import { openStore } from "../store/db.js";
import { type CompanySyncResult, syncCompany } from "../sync/company.js";

export interface SyncCommandOptions {
  companyId?: number | undefined;
  logger: Logger;
  out: (line: string) => void;
}

/** Exit codes: 0 all succeeded, 1 a company failed, 3 some company was only partly synced. */
export async function runSyncCommand(cfg: Config, opts: SyncCommandOptions): Promise<number> {
  const companies =
    opts.companyId === undefined ? cfg.companies : cfg.companies.filter((c) => c.id === opts.companyId);
  if (companies.length === 0) {
    opts.out(
      `error: company ${opts.companyId} is not in the config (configured: ${cfg.companies.map((c) => c.id).join(", ")})`,
    );
    return 2;
  }
  const store = openStore(cfg.database);
  const clients = createClients(cfg, opts.logger);
  const results: CompanySyncResult[] = [];
  try {
    for (const company of companies) {
      const result = await syncCompany(
        { sqlite: store.sqlite, client: clients.clientFor(company.id), logger: opts.logger },
        { companyId: company.id, reportIds: company.reportIds, trigger: "cli" },
      );
      results.push(result);
      opts.out(summaryLine(result));
      for (const e of result.errors) opts.out(`  ! ${e}`);
    }
  } finally {
    await clients.close();
    store.close();
  }
  if (results.some((r) => r.status === "failed")) return 1;
  if (results.some((r) => r.status === "partial")) return 3;
  return 0;
}

export function summaryLine(r: CompanySyncResult): string {
  const c = r.counts;
  return (
    `company ${r.companyId}: ${r.status} in ${(r.durationMs / 1000).toFixed(1)}s (run ${r.runId}) - ` +
    `fetched ${c.fetched}, inserted ${c.inserted}, updated ${c.updated}, unchanged ${c.unchanged}, ` +
    `deleted ${c.deleted}, rejected ${c.rejected}`
  );
}
