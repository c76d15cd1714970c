#!/usr/bin/env node
import { main } from "./cli.js";
import { commands } from "./commands/index.js";

// `tas-sync status | head` closes our stdout early: that is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

/**
 * Once the command is done, the process ends when nothing is pending; should a library keep a
 * handle open anyway (BullMQ's own connection retrying an unreachable Redis after a forced
 * close), it ends a second later regardless.
 */
const exitSoon = (code: number) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1000).unref();
};
// The last resort (main() reports every error of a command itself): one line, with the
// command's name when the first argument is one, like every other error line.
const first = process.argv[2];
const prefix = commands.some((c) => c.name === first) ? `tas-sync ${first}: ` : "tas-sync: ";

main(process.argv.slice(2)).then(
  (code) => exitSoon(code),
  (err: unknown) => {
    process.stderr.write(`${prefix}${err instanceof Error ? err.message : String(err)}\n`);
    exitSoon(1);
  },
);
