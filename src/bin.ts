#!/usr/bin/env node
import { main } from "./cli.js";

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

main(process.argv.slice(2)).then(
  (code) => exitSoon(code),
  (err: unknown) => {
    process.stderr.write(`tas-sync: ${err instanceof Error ? err.message : String(err)}\n`);
    exitSoon(1);
  },
);
