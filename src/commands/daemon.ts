/** `tas-sync daemon`: flags in, runDaemon (src/daemon/) until SIGINT/SIGTERM, exit code out. */
import { runDaemon } from "../daemon/index.js";
import type { CommandRun } from "./types.js";

export const runDaemonCommand: CommandRun = async (ctx) => {
  const cfg = ctx.config();
  return runDaemon(cfg, {
    logger: await ctx.logger(),
    stop: ctx.stopSignal,
    roles: { sync: !ctx.flags["no-sync"], push: !ctx.flags["no-push"], server: !ctx.flags["no-server"] },
  });
};
