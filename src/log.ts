/** pino logger: JSON by default, readable on a TTY; secrets are redacted by path. */
import { destination, type Logger, pino } from "pino";
import pretty from "pino-pretty";

export type { Logger };

const SECRET_KEYS = [
  "token",
  "password",
  "clientSecret",
  "access_token",
  "refresh_token",
  "authorization",
  "Authorization",
];

/** Each secret key at the top level and up to two levels deep (pino paths take no recursion). */
const REDACT_PATHS = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

export interface LogOptions {
  level?: string;
  /** Force pretty (true) or JSON (false); default: pretty when stderr is a TTY. */
  pretty?: boolean;
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const level = opts.level ?? process.env.TAS_LOG_LEVEL ?? "info";
  const options = { level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: { app: "tas-sync" } };
  const wantPretty = opts.pretty ?? (process.stderr.isTTY === true && process.env.TAS_LOG_FORMAT !== "json");
  if (wantPretty) {
    return pino(options, pretty({ destination: 2, colorize: true, sync: true, ignore: "pid,hostname,app" }));
  }
  return pino(options, opts.destination ?? destination({ dest: 2, sync: true }));
}
