/**
 * tas-sync command line: parse arguments, call a command, set the exit code. Wiring only.
 * Only the catalogue (names, help texts, option specs) is imported up front: `--help` and
 * `<command> --help` answer without loading any command's implementation.
 */
import { parseArgs } from "node:util";
import { commands } from "./commands/index.js";
import { SIGNAL_EXIT_CODES, type StopWatch, watchStopSignals } from "./commands/signals.js";
import type { CommandContext, CommandSpec, Flags, PassthroughSpec } from "./commands/types.js";
import type { Config } from "./config/index.js";
import { UserError } from "./errors.js";
import type { Logger } from "./log.js";
import { argsError } from "./text/args-error.js";
import { closestName } from "./text/suggest.js";

const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

const GLOBAL_OPTIONS = {
  config: { type: "string", short: "c" },
  "log-level": { type: "string" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "tas-sync: mirror Test Automation Service plans and reports into SQLite or PostgreSQL; push scenarios exactly once.",
    "",
    "Usage: tas-sync <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Global options (before or after the command):",
    "  -c, --config PATH   config file (default: $TAS_CONFIG, else ./tas-sync.config.json)",
    "  --log-level LEVEL   trace|debug|info|warn|error|fatal|silent",
    "                      (default: $TAS_LOG_LEVEL, else the config's logLevel, else info;",
    "                      a command other than daemon logs info only with -v when stderr is a terminal)",
    "  -v, --verbose       log at info (at least) on a terminal too",
    "  -h, --help          help for tas-sync or a command",
    "",
    "Run 'tas-sync <command> --help' for a command's options.",
  ].join("\n");
}

/** Writes each line of `message` as `tas-sync <command>: line` on stderr. */
function fail(command: string | null, message: string): void {
  const prefix = command ? `tas-sync ${command}: ` : "tas-sync: ";
  process.stderr.write(
    `${message
      .split("\n")
      .map((l) => prefix + l)
      .join("\n")}\n`,
  );
}

function unknownCommand(name: string): number {
  if (name.startsWith("-")) {
    fail(null, `expected a command before the options, got "${name}" (see tas-sync --help)`);
    return 2;
  }
  const near = closestName(
    name,
    commands.map((c) => c.name),
  );
  const hint = near ? `did you mean "${near}"? ` : "";
  fail(null, `unknown command "${name}" (${hint}see tas-sync --help)`);
  return 2;
}

/** Global options that take a value, by every spelling they may have before the command. */
const GLOBAL_VALUES = new Set(["-c", "--config", "--log-level"]);
const GLOBAL_FLAGS = new Set(["-v", "--verbose"]);

/**
 * Global options given before the command (`tas-sync -c cfg.json sync`) move after it, where
 * the command's parser reads them with its own; anything else before the command is an error.
 */
export function hoistGlobals(argv: readonly string[]): { argv: string[] } | { problem: string } {
  const globals: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("-") || arg === "-h" || arg === "--help") break;
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
    if (GLOBAL_FLAGS.has(arg)) globals.push(arg);
    else if (GLOBAL_VALUES.has(name) && name !== arg) globals.push(arg);
    else if (GLOBAL_VALUES.has(arg)) {
      const value = argv[i + 1];
      if (value === undefined) return { problem: `option ${arg} needs a value` };
      globals.push(arg, value);
      i++;
    } else return { problem: `expected a command before the options, got "${arg}" (see tas-sync --help)` };
  }
  if (globals.length && i >= argv.length)
    return { problem: "expected a command after the options (see tas-sync --help)" };
  return { argv: globals.length ? [argv[i] as string, ...argv.slice(i + 1), ...globals] : [...argv] };
}

export async function main(args: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const hoisted = hoistGlobals(args);
  if ("problem" in hoisted) {
    fail(null, hoisted.problem);
    return 2;
  }
  const argv = hoisted.argv;
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    out(usage());
    return name ? 0 : 2;
  }
  if (name === "help") {
    const topic = rest[0] === undefined ? undefined : commands.find((c) => c.name === rest[0]);
    if (rest[0] !== undefined && !topic) return unknownCommand(rest[0]);
    if (topic && !topic.passthrough) out(topic.help);
    else if (topic) return main([topic.name, "--help"]);
    else out(usage());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return unknownCommand(name);
  return command.passthrough ? passthrough(command, rest) : parseAndRun(command, rest, out);
}

/** A command that parses its own argv (the simulator); it runs until the first signal. */
async function passthrough(command: PassthroughSpec, argv: string[]): Promise<number> {
  const stop = watchStopSignals(command.name);
  try {
    const run = await command.passthrough();
    return exitCode(stop, await run(argv, { stop: stop.stopped }));
  } finally {
    stop.dispose();
  }
}

async function parseAndRun(command: CommandSpec, argv: string[], out: (l: string) => void): Promise<number> {
  let flags: Flags;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    flags = parsed.values as Flags;
    positionals = parsed.positionals;
  } catch (err) {
    const known = Object.keys({ ...GLOBAL_OPTIONS, ...command.options });
    fail(command.name, `${argsError(err, known)} (see tas-sync ${command.name} --help)`);
    return 2;
  }
  if (flags.help) {
    out(command.help);
    return 0;
  }
  const allowed = command.positionals ?? 0;
  if (positionals.length > allowed) {
    fail(command.name, `unexpected argument "${positionals[allowed]}" (see tas-sync ${command.name} --help)`);
    return 2;
  }
  return run(command, flags, positionals, out);
}

/** The level of --log-level, else of TAS_LOG_LEVEL (undefined when neither is set), or a problem. */
function levelOverride(flags: Flags): { level?: string; problem?: string } {
  const sources: [string, string | undefined][] = [
    ["--log-level", typeof flags["log-level"] === "string" ? flags["log-level"] : undefined],
    ["TAS_LOG_LEVEL", process.env.TAS_LOG_LEVEL || undefined],
  ];
  for (const [where, level] of sources) {
    if (level === undefined) continue;
    if (!LEVELS.includes(level))
      return { problem: `unknown log level "${level}" in ${where} (use ${LEVELS.join(", ")})` };
    return { level };
  }
  return {};
}

const VERBOSITY = ["silent", "fatal", "error", "warn", "info", "debug", "trace"];

/**
 * The level when neither --log-level nor TAS_LOG_LEVEL says: the config's logLevel (info by
 * default). On a terminal a one-shot command's info becomes warn, so that its summary lines
 * stand alone; -v keeps info (and raises a quieter config to it). The daemon logs as configured.
 */
export function defaultLevel(
  command: Pick<CommandSpec, "logsAsService">,
  configured: string | undefined,
  verbose: boolean,
  terminal: boolean = process.stderr.isTTY === true,
): string {
  const level = configured ?? "info";
  if (verbose) return VERBOSITY.indexOf(level) < VERBOSITY.indexOf("info") ? "info" : level;
  if (terminal && !command.logsAsService && level === "info") return "warn";
  return level;
}

async function run(
  command: CommandSpec,
  flags: Flags,
  positionals: string[],
  out: (l: string) => void,
): Promise<number> {
  const override = levelOverride(flags);
  if (override.problem) {
    fail(command.name, override.problem);
    return 2;
  }
  const stop = watchStopSignals(command.name);
  let config: typeof import("./config/index.js") | undefined;
  let cfg: Config | undefined;
  let logger: { level: string; logger: Logger } | undefined;
  const ctx: CommandContext = {
    flags,
    positionals,
    out,
    stopSignal: stop.signal,
    config: () => {
      if (!config) throw new Error("config() called before the config loader was imported");
      if (cfg) return cfg;
      const path = config.configPath(typeof flags.config === "string" ? flags.config : undefined);
      const fileWarnings: string[] = [];
      cfg = config.loadConfig(path, process.env, command.secretsWhenUsed ? "use" : "load", fileWarnings);
      for (const warning of [...fileWarnings, ...config.configWarnings(cfg)])
        process.stderr.write(`tas-sync ${command.name}: warning: ${warning}\n`);
      return cfg;
    },
    async logger() {
      const level = override.level ?? defaultLevel(command, cfg?.logLevel, flags.verbose === true);
      if (logger?.level !== level) {
        const { createLogger } = await import("./log.js");
        logger = { level, logger: createLogger({ level }) };
      }
      return logger.logger;
    },
  };
  try {
    // The implementation and the config loader (every command reads one) load side by side.
    const [impl, loader] = await Promise.all([command.load(), import("./config/index.js")]);
    config = loader;
    const code = await impl(ctx);
    return command.signalEndsNormally && code === 0 ? 0 : exitCode(stop, code);
  } catch (err) {
    if (err instanceof UserError) {
      fail(command.name, err.message);
      return exitCode(stop, err.exitCode);
    }
    const e = err as Error;
    fail(command.name, e?.message ?? String(err));
    if (e?.stack) (await ctx.logger()).debug({ stack: e.stack }, "unexpected error");
    return exitCode(stop, 1);
  } finally {
    stop.dispose();
  }
}

/** A command stopped by a signal exits 130 (SIGINT) or 143 (SIGTERM), whatever it returned. */
function exitCode(stop: StopWatch, code: number): number {
  const signal = stop.received();
  return signal ? SIGNAL_EXIT_CODES[signal] : code;
}
