/**
 * The config file: JSON, validated with zod (./schema.ts). Secrets may be written "env:VAR_NAME".
 * Nothing is read at import time; `loadConfig` does the I/O.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { z } from "zod";
import { UserError } from "../errors.js";
import { closestName } from "../text/suggest.js";
import type { SecretsAt } from "./fields.js";
import { type ConfigKey, configKeys, keysAt } from "./keys.js";
import { fileSecretsWarning } from "./literal-secrets.js";
import { type Config, configSchema, STALE_PERIODS } from "./schema.js";

export type { DatabaseTarget } from "./database.js";
export { databaseFromFlag, databaseTarget, maskUrl } from "./database.js";
export { formatDuration, parseDuration } from "./duration.js";
export type { SecretsAt } from "./fields.js";
export { UnsetSecretError } from "./fields.js";
export { configSchema, isLoopback } from "./schema.js";
export { configWarnings } from "./warnings.js";

export class ConfigError extends UserError {
  override name = "ConfigError";
}

export type { Config } from "./schema.js";
export type AuthConfig = NonNullable<Config["auth"]>;
export type CompanyConfig = Config["companies"][number];

/**
 * Which file to read: --config, else TAS_CONFIG, else ./tas-sync.config.json.
 * @public cli.ts calls it on the module it loads with import(), which knip does not follow.
 */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.TAS_CONFIG ?? "tas-sync.config.json");
}

function formatIssue(issue: z.core.$ZodIssue, keys: () => ConfigKey[]): string {
  const path = issue.path.length
    ? issue.path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "")
    : "(root)";
  if (issue.code === "unrecognized_keys")
    return `${path}: ${unknownKeys(issue.keys, keysAt(keys(), issue.path))}`;
  return `${path}: ${issue.message}`;
}

/** `unknown key "evry" (did you mean "every"?)`, from the keys the schema allows there. */
function unknownKeys(given: string[], allowed: string[]): string {
  return given
    .map((key) => {
      const near = closestName(key, allowed);
      return `unknown key "${key}"${near ? ` (did you mean "${near}"?)` : ` (allowed here: ${allowed.join(", ")})`}`;
    })
    .join("; ");
}

/**
 * A failed union (the two auth shapes) reports only "auth: Invalid input"; report instead
 * the issues of the branch the object was meant to be: the one with the fewest keys it does
 * not know, then the fewest issues. Paths become absolute.
 */
function expandUnions(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const unknownKeys = (branch: z.core.$ZodIssue[]) =>
    branch.reduce(
      (n, i) => n + (i.code === "unrecognized_keys" && i.path.length === 0 ? i.keys.length : 0),
      0,
    );
  const score = (branch: z.core.$ZodIssue[]) => 1000 * unknownKeys(branch) + branch.length;
  const best = [...issue.errors].sort((a, b) => score(a) - score(b))[0] ?? [];
  return best.flatMap((i) => expandUnions({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue));
}

/**
 * Validate an already-parsed config object. Throws ConfigError naming the key path. With
 * `secretsAt: "use"`, unset "env:" secrets fail only when revealed (read-only commands).
 */
export function parseConfig(
  raw: unknown,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
  secretsAt: SecretsAt = "load",
): Config {
  const schema = configSchema(env, secretsAt);
  const result = schema.safeParse(raw);
  if (!result.success) {
    let keys: ConfigKey[] | undefined;
    const allKeys = () => {
      keys ??= configKeys(schema);
      return keys;
    };
    const lines = result.error.issues.flatMap(expandUnions).map((i) => formatIssue(i, allKeys));
    throw new ConfigError(`invalid config ${source}: ${lines.join("; ")}`);
  }
  return result.data;
}

/**
 * Read and validate the config file. `warnings`, when given, gets the file's own warnings (a
 * file that holds literal secrets and that others may read).
 */
export function loadConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  secretsAt: SecretsAt = "load",
  warnings?: string[],
): Config {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === "ENOENT"
        ? `config file not found: ${path} (pass --config PATH or set TAS_CONFIG)`
        : `cannot read config ${path}: ${code ?? String(err)}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // Only where, never the parser's message: it quotes the text around the error, which
    // may be a secret.
    throw new ConfigError(`config ${path} is not valid JSON (${jsonErrorPlace(text, err)})`);
  }
  const overridden = withEnvOverrides(raw, env);
  const source = overridden.applied.length
    ? `${path} (with ${overridden.applied.join(", ")} from the environment)`
    : path;
  const cfg = parseConfig(overridden.raw, source, env, secretsAt);
  const exposed = warnings ? fileSecretsWarning(path, raw) : null;
  if (exposed !== null) warnings?.push(exposed);
  return cfg;
}

/**
 * Environment variables that override a key of the config file: a command-line flag (such as
 * --db) wins over them, and they win over the file.
 */
const ENV_OVERRIDES = [
  { variable: "REDIS_URL", key: "redisUrl" },
  { variable: "TAS_DATABASE", key: "database" },
] as const;

/** The file's object with each set (non-empty) override in place, and which were applied. */
export function withEnvOverrides(raw: unknown, env: NodeJS.ProcessEnv): { raw: unknown; applied: string[] } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { raw, applied: [] };
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const applied: string[] = [];
  for (const { variable, key } of ENV_OVERRIDES) {
    const value = env[variable];
    if (value === undefined || value === "") continue;
    out[key] = value;
    applied.push(variable);
  }
  return { raw: out, applied };
}

/**
 * The auth that applies to a company: its own, else the default; and where it is configured
 * (`companies[1].auth`, `auth`), for the errors that name the credential.
 */
export function authFor(cfg: Config, company: CompanyConfig): { auth: AuthConfig; source: string } {
  if (company.auth) {
    const i = cfg.companies.findIndex((c) => c.id === company.id);
    return { auth: company.auth, source: `companies[${i}].auth` };
  }
  if (cfg.auth) return { auth: cfg.auth, source: "auth" };
  throw new ConfigError(`companies[${company.id}]: no auth configured`);
}

/** "company 7 is not in the config (configured: 1, 2)": for a company id given that the config lacks. */
export function notInConfig(cfg: Config, companyId: number): string {
  return `company ${companyId} is not in the config (configured: ${cfg.companies.map((c) => c.id).join(", ")})`;
}

/** How often a company is synced (ms): its own `every`, else sync.every. */
export function syncEveryOf(cfg: Config, company: CompanyConfig): number {
  return company.every ?? cfg.sync.every;
}

/** After how long without a successful sync a company is stale (ms). */
export function staleAfterOf(cfg: Config, company: CompanyConfig): number {
  return cfg.sync.staleAfter ?? STALE_PERIODS * syncEveryOf(cfg, company);
}

/** "line L, column C" of a JSON.parse error, from the position the message gives. */
function jsonErrorPlace(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : "";
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return `syntax error at line ${lineColumn[1]}, column ${lineColumn[2]}`;
  const match = /position (\d+)/.exec(message);
  if (!match) return "syntax error";
  const before = text.slice(0, Number(match[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `syntax error at line ${line}, column ${column}`;
}
