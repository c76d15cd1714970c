/** `tas-sync prune [--dry-run]` (spec in catalog/pull.ts): retention on demand, wiring only. */
import { openStoreForWork } from "../open-store.js";
import { describeRemoved, prune } from "../retention/prune.js";
import { PRUNED_TABLES } from "../store/port-retention.js";
import { formatTable } from "./table.js";
import type { CommandRun } from "./types.js";

export const runPrune: CommandRun = async (ctx) => {
  const cfg = ctx.config();
  const logger = await ctx.logger();
  const dryRun = ctx.flags["dry-run"] === true;
  const store = await openStoreForWork(cfg.database, { logger, leaseMs: cfg.sync.leaseMs });
  try {
    const report = await prune(store, cfg.retention, { dryRun, signal: ctx.stopSignal });
    if (ctx.flags.json) {
      ctx.out(
        JSON.stringify(
          {
            dry_run: report.dryRun,
            removed: report.removed,
            cutoffs: report.cutoffs,
            duration_ms: report.durationMs,
            stopped: report.stopped,
          },
          null,
          2,
        ),
      );
    } else {
      const verb = dryRun ? "would remove" : "removed";
      ctx.out(
        formatTable(
          PRUNED_TABLES.map((t) => ({
            table: t,
            [verb]: report.removed[t],
            "older than": cutoffOf(report.cutoffs, t) ?? "kept for ever",
          })),
        ),
      );
    }
    logger.info(
      {
        dryRun,
        removed: report.removed,
        batches: report.batches,
        longestBatchMs: report.longestBatchMs,
        durationMs: report.durationMs,
      },
      `${dryRun ? "prune (dry run) would remove" : "pruned"}: ${describeRemoved(report.removed)}`,
    );
    // Stopped by a signal: the CLI exits 130/143 (what was removed stays removed).
    return 0;
  } finally {
    await store.close();
  }
};

function cutoffOf(
  cutoffs: Record<string, string | null>,
  table: (typeof PRUNED_TABLES)[number],
): string | null {
  switch (table) {
    case "sync_runs":
    case "sync_errors":
      return cutoffs.runs ?? null;
    case "rejected_records":
      return cutoffs.rejected ?? null;
    case "scenario_requests":
    case "seed_rejections":
      return cutoffs.pushes ?? null;
    case "schema_changes":
      return cutoffs.schemaChanges ?? null;
  }
}
