/**
 * The shape of a CLI command. A command is two parts: its spec (name, summary, help, option
 * specs: cheap, in the catalogue that `--help` reads) and its implementation (loaded with a
 * dynamic import only when the command runs, with its heavy dependencies).
 */
import type { ParseArgsConfig } from "node:util";
import { type Config, notInConfig } from "../config/index.js";
import { UserError } from "../errors.js";
import type { Logger } from "../log.js";

export type Flags = Record<string, string | boolean | undefined>;

export interface CommandContext {
  flags: Flags;
  positionals: string[];
  /** Load and validate the config (--config, TAS_CONFIG, ./tas-sync.config.json). */
  config(): Config;
  /**
   * The logger (pino), loaded on first use: --log-level, else TAS_LOG_LEVEL, else the
   * config's logLevel (when config() was called first), else info; info is warn on a terminal
   * unless -v or the command is a service (cli.ts defaultLevel).
   */
  logger(): Promise<Logger>;
  out(line: string): void;
  /** Aborted on the first SIGINT/SIGTERM: finish or abandon the current unit, then return. */
  stopSignal: AbortSignal;
}

/** A command's implementation: flags in, exit code out. */
export type CommandRun = (ctx: CommandContext) => Promise<number>;

interface SpecBase {
  name: string;
  summary: string;
}

/** A command whose flags the CLI parses (with the global ones) and whose help it prints. */
export interface CommandSpec extends SpecBase {
  /** Full --help text (usage line, flags, exit codes). */
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Number of positional arguments allowed. */
  positionals?: number;
  /** The implementation, imported when the command runs (never for --help). */
  load(): Promise<CommandRun>;
  /**
   * A signal is this command's normal way to end (the daemon): after a graceful stop it exits
   * with what it returned (0), not 130/143. A second signal still exits 130/143 at once.
   */
  signalEndsNormally?: boolean;
  /**
   * A service (the daemon): logs at its configured level on a terminal too. Other commands
   * log info on a terminal only with -v (their summary lines are what a person reads).
   */
  logsAsService?: boolean;
  /**
   * The command never talks to the service, sends a webhook or serves HTTP (it works on the
   * database and Redis: reads, and writes of its own such as replay's rows or `schema --ack`),
   * so the config's "env:" secrets are read only if something uses them: an analyst's shell
   * without the service's secrets can still run it.
   */
  secretsWhenUsed?: boolean;
  passthrough?: undefined;
}

/** A command that parses its own argv, help included (the simulator): no config, no global flags. */
export interface PassthroughSpec extends SpecBase {
  passthrough(): Promise<(argv: string[], io: { stop: Promise<unknown> }) => Promise<number>>;
}

export type Command = CommandSpec | PassthroughSpec;

/** A company id the user gave (--company), checked against the config; undefined stays undefined. */
export function configuredCompany(cfg: Config, companyId: number | undefined): number | undefined {
  if (companyId !== undefined && !cfg.companies.some((c) => c.id === companyId))
    throw new UsageError(notInConfig(cfg, companyId));
  return companyId;
}

/** An integer flag, or a clear error naming the flag. */
export function intFlag(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || v.trim() === "" || !Number.isSafeInteger(n))
    throw new UsageError(`--${name} expects an integer, got "${String(v)}"`);
  return n;
}

/** An integer flag that, when given, must be at least `min`. */
export function atLeast(flags: Flags, name: string, min: number): number | undefined {
  const n = intFlag(flags, name);
  if (n !== undefined && n < min) throw new UsageError(`--${name} must be at least ${min}, got ${n}`);
  return n;
}

export class UsageError extends UserError {
  override name = "UsageError";
}
