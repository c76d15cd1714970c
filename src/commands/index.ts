/** Every CLI command, in the order `tas-sync --help` lists them. */
import { runSimulateCommand, SIMULATE_USAGE } from "../simulator/command.js";
import { daemonCommand } from "./daemon.js";
import { demoCommand } from "./demo.js";
import { pushFailuresCommand, resumePushCommand, retryFailedCommand, setParentIdCommand } from "./outbox.js";
import { migrateCommand, syncCommand } from "./pull.js";
import { pushCommand } from "./push.js";
import { queryCommand } from "./query.js";
import { statusCommand } from "./status.js";
import type { Command } from "./types.js";

const simulateCommand: Command = {
  name: "simulate",
  summary: "run the bundled simulator of the Test Automation Service",
  help: SIMULATE_USAGE,
  options: {},
  run: async () => 2,
  passthrough: (argv) => runSimulateCommand(argv),
};

export const commands: Command[] = [
  syncCommand,
  pushCommand,
  daemonCommand,
  statusCommand,
  pushFailuresCommand,
  retryFailedCommand,
  resumePushCommand,
  setParentIdCommand,
  migrateCommand,
  queryCommand,
  simulateCommand,
  demoCommand,
];
