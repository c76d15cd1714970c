/** tas-sync command line: parse arguments, call a command, set the exit code. Wiring only. */
import { parseArgs } from "node:util";
import { commands } from "./commands/index.js";
import { type Command, type Flags, UsageError } from "./commands/types.js";
import { type Config, configPath, loadConfig } from "./config/index.js";
import { configWarnings } from "./config/warnings.js";
import { UserError } from "./errors.js";
import { createLogger } from "./log.js";

const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

const GLOBAL_OPTIONS = {
  config: { type: "string", short: "c" },
  "log-level": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "tas-sync: mirror Test Automation Service plans and reports into SQLite; push scenarios exactly once.",
    "",
    "Usage: tas-sync <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Global options:",
    "  -c, --config PATH   config file (default: $TAS_CONFIG, else ./tas-sync.config.json)",
    "  --log-level LEVEL   trace|debug|info|warn|error|fatal|silent",
    "                      (default: $TAS_LOG_LEVEL, else the config's logLevel, else info)",
    "  -h, --help          help for tas-sync or a command",
    "",
    "Run 'tas-sync <command> --help' for a command's options.",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    out(usage());
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`tas-sync: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  // A command that parses its own arguments (the simulator).
  if (command.passthrough) return command.passthrough(rest);
  let flags: Flags;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    flags = parsed.values as Flags;
    positionals = parsed.positionals;
    if (positionals.length > (command.positionals ?? 0)) {
      throw new UsageError(`unexpected argument "${positionals[command.positionals ?? 0]}"`);
    }
  } catch (err) {
    process.stderr.write(`tas-sync ${name}: ${(err as Error).message}\n\n${command.help}\n`);
    return 2;
  }
  if (flags.help) {
    out(command.help);
    return 0;
  }
  return run(command, flags, positionals, out);
}

async function run(
  command: Command,
  flags: Flags,
  positionals: string[],
  out: (l: string) => void,
): Promise<number> {
  // --log-level, else TAS_LOG_LEVEL, else the config's logLevel (once loaded), else info.
  let level =
    typeof flags["log-level"] === "string" ? flags["log-level"] : process.env.TAS_LOG_LEVEL || undefined;
  if (level !== undefined && !LEVELS.includes(level)) {
    process.stderr.write(
      `tas-sync ${command.name}: unknown log level "${level}" (use ${LEVELS.join(", ")})\n`,
    );
    return 2;
  }
  let logger = createLogger({ level: level ?? "info" });
  let loaded: Config | undefined;
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    return await command.run({
      flags,
      positionals,
      out,
      get logger() {
        return logger;
      },
      config() {
        if (loaded) return loaded;
        const cfg = loadConfig(configPath(typeof flags.config === "string" ? flags.config : undefined));
        if (!level) {
          level = cfg.logLevel;
          logger = createLogger({ level });
        }
        for (const warning of configWarnings(cfg)) logger.warn(`config: ${warning}`);
        loaded = cfg;
        return cfg;
      },
      stopSignal: controller.signal,
    });
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`tas-sync ${command.name}: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    process.stderr.write(`tas-sync ${command.name}: ${e.message ?? String(err)}\n`);
    logger.debug({ stack: e.stack }, "unexpected error");
    return 1;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
