/** `tas-sync replay`: the stored records of each company made into rows again (no service call). */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { openStore } from "../store/open.js";
import { cleanUpAfterDeadProcesses } from "../sync/housekeeping.js";
import { replayCompany } from "../sync/replay.js";
import { exitCode, summaryLine } from "./sync.js";
import { type CommandRun, intFlag, UsageError } from "./types.js";

export const runReplay: CommandRun = async (ctx) =>
  replayCommand(ctx.config(), {
    companyId: intFlag(ctx.flags, "company"),
    logger: await ctx.logger(),
    out: ctx.out,
  });

export async function replayCommand(
  cfg: Config,
  opts: { companyId: number | undefined; logger: Logger; out: (line: string) => void },
): Promise<number> {
  const ids = opts.companyId === undefined ? cfg.companies.map((c) => c.id) : [opts.companyId];
  if (opts.companyId !== undefined && !cfg.companies.some((c) => c.id === opts.companyId))
    throw new UsageError(
      `company ${opts.companyId} is not in the config (configured: ${cfg.companies.map((c) => c.id).join(", ")})`,
    );
  const store = await openStore(cfg.database);
  try {
    await cleanUpAfterDeadProcesses(store, opts.logger, cfg.sync.leaseMs);
    const results = [];
    for (const companyId of ids) {
      const r = await replayCompany(
        { store, logger: opts.logger, leaseMs: cfg.sync.leaseMs, schema: cfg.schema },
        companyId,
      );
      opts.out(summaryLine(r));
      for (const e of r.errors) opts.out(`  ! ${e}`);
      results.push(r);
    }
    return exitCode(results);
  } finally {
    await store.close();
  }
}
