/** The shape of a CLI command: parsed flags in, exit code out. */
import type { ParseArgsConfig } from "node:util";
import type { Config } from "../config/index.js";
import { UserError } from "../errors.js";
import type { Logger } from "../log.js";

export type Flags = Record<string, string | boolean | undefined>;

export interface CommandContext {
  flags: Flags;
  positionals: string[];
  /** Load and validate the config (--config, TAS_CONFIG, ./tas-sync.config.json). */
  config(): Config;
  logger: Logger;
  out(line: string): void;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM). */
  stopSignal: AbortSignal;
}

export interface Command {
  name: string;
  summary: string;
  /** Full --help text (usage line, flags, exit codes). */
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Number of positional arguments allowed. */
  positionals?: number;
  run(ctx: CommandContext): Promise<number>;
  /** Set when the command parses its own argv (no config, no global flags). */
  passthrough?: (argv: string[]) => Promise<number>;
}

/** An integer flag, or a clear error naming the flag. */
export function intFlag(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isSafeInteger(n))
    throw new UsageError(`--${name} expects an integer, got "${String(v)}"`);
  return n;
}

export function numberFlag(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isFinite(n))
    throw new UsageError(`--${name} expects a number, got "${String(v)}"`);
  return n;
}

export class UsageError extends UserError {
  override name = "UsageError";
}
