/**
 * The command catalogue, in the order `tas-sync --help` lists them: names, summaries, help
 * texts and option specs only. Each command's implementation is imported when it runs, so
 * `--help` and `<command> --help` load none of undici, BullMQ, SQLite, drizzle, pino or zod.
 */
import { dbtSourcesSpec, exportSpec } from "./catalog/analytics.js";
import {
  demoSpec,
  grantReaderSpec,
  migrateSpec,
  pruneSpec,
  querySpec,
  replaySpec,
  syncSpec,
} from "./catalog/pull.js";
import {
  pushFailuresSpec,
  pushSpec,
  resumePushSpec,
  retryFailedSpec,
  setParentIdSpec,
} from "./catalog/push.js";
import { daemonSpec, schemaSpec, simulateSpec, statusSpec } from "./catalog/service.js";
import type { Command } from "./types.js";

export const commands: Command[] = [
  syncSpec,
  pushSpec,
  daemonSpec,
  statusSpec,
  schemaSpec,
  pushFailuresSpec,
  retryFailedSpec,
  resumePushSpec,
  setParentIdSpec,
  replaySpec,
  migrateSpec,
  pruneSpec,
  querySpec,
  grantReaderSpec,
  dbtSourcesSpec,
  exportSpec,
  simulateSpec,
  demoSpec,
];
