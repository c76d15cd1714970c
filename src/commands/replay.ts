/** `tas-sync replay`: the stored records of each company made into rows again (no service call). */
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import { openStoreForWork } from "../open-store.js";
import { replayCompany } from "../sync/replay.js";
import { exitCode, summaryLine } from "./sync.js";
import { type CommandRun, configuredCompany, intFlag } from "./types.js";

export const runReplay: CommandRun = async (ctx) =>
  replayCommand(ctx.config(), {
    companyId: intFlag(ctx.flags, "company"),
    logger: await ctx.logger(),
    out: ctx.out,
  });

async function replayCommand(
  cfg: Config,
  opts: { companyId: number | undefined; logger: Logger; out: (line: string) => void },
): Promise<number> {
  const only = configuredCompany(cfg, opts.companyId);
  const ids = only === undefined ? cfg.companies.map((c) => c.id) : [only];
  const store = await openStoreForWork(cfg.database, { logger: opts.logger, leaseMs: cfg.sync.leaseMs });
  try {
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
