/** `tas-sync migrate` (spec in catalog/pull.ts). */
import { databaseFromFlag } from "../config/index.js";
import { openStoreForWork } from "../open-store.js";
import type { CommandRun } from "./types.js";

export const runMigrate: CommandRun = async (ctx) => {
  // With --db there may be no config: the default lease then tells a dead run from a live one.
  const cfg = typeof ctx.flags.db === "string" ? undefined : ctx.config();
  const target = cfg ? cfg.database : databaseFromFlag(ctx.flags.db as string);
  const store = await openStoreForWork(target, { logger: await ctx.logger(), leaseMs: cfg?.sync.leaseMs });
  try {
    const n = await store.sql.migrationCount();
    ctx.out(`database ${target.display} is up to date (${n} migrations applied)`);
  } finally {
    await store.close();
  }
  return 0;
};
