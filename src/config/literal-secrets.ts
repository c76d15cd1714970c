/**
 * Secrets written into the config file itself (not "env:NAME"), and the warning a file that
 * holds them gets when people other than its owner may read it (as ssh says of a key file).
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";

/** The config's secret-typed keys; `*` is any index of an array. A URL counts when it holds a password. */
const SECRET_KEYS = [
  "auth.token",
  "auth.clientId",
  "auth.clientSecret",
  "auth.username",
  "auth.password",
  "companies.*.auth.token",
  "companies.*.auth.clientId",
  "companies.*.auth.clientSecret",
  "companies.*.auth.username",
  "companies.*.auth.password",
  "server.password",
  "alerts.webhookUrl",
] as const;
/** Keys whose value is a URL: literal only when it carries a password. */
const URL_KEYS = ["database", "redisUrl"] as const;

/** Every secret-typed key (as `companies[1].auth.password`) whose value is written in the file. */
export function literalSecretKeys(raw: unknown): string[] {
  const found: string[] = [];
  for (const key of SECRET_KEYS) {
    for (const { path, value } of valuesAt(raw, key.split(".")))
      if (typeof value === "string" && value !== "" && !value.startsWith("env:")) found.push(path);
  }
  for (const key of URL_KEYS) {
    const value = (raw as Record<string, unknown> | null)?.[key];
    if (typeof value === "string" && !value.startsWith("env:") && hasPassword(value)) found.push(key);
  }
  return found;
}

function hasPassword(value: string): boolean {
  try {
    return new URL(value).password !== "";
  } catch {
    return false;
  }
}

function valuesAt(node: unknown, parts: string[], path = ""): { path: string; value: unknown }[] {
  if (parts.length === 0) return [{ path, value: node }];
  if (typeof node !== "object" || node === null) return [];
  const [head, ...rest] = parts as [string, ...string[]];
  if (head === "*") {
    if (!Array.isArray(node)) return [];
    return node.flatMap((item, i) => valuesAt(item, rest, `${path}[${i}]`));
  }
  if (!Object.hasOwn(node, head)) return [];
  return valuesAt((node as Record<string, unknown>)[head], rest, path ? `${path}.${head}` : head);
}

/**
 * The one-line warning for a config file that holds literal secrets and that group or others
 * may read, or null. `mode` is the file's permission bits (stat), null when unknown.
 */
export function secretsWarning(path: string, mode: number | null, keys: readonly string[]): string | null {
  if (mode === null || keys.length === 0 || (mode & 0o044) === 0) return null;
  const who = (mode & 0o004) !== 0 ? "everyone" : "its group";
  const octal = (mode & 0o777).toString(8).padStart(4, "0");
  return `config ${path} is readable by ${who} (mode ${octal}) and holds literal secrets in ${keys.join(", ")}: run chmod 600 ${path}, or write them as "env:NAME"`;
}

/**
 * The warning for the config file at `path`, from its permission bits (none on Windows, which
 * has no such bits). A file in a directory that only its owner may enter (as `mktemp -d` makes)
 * is readable by nobody else, whatever its own mode.
 */
export function fileSecretsWarning(path: string, raw: unknown): string | null {
  if (process.platform === "win32") return null;
  const keys = literalSecretKeys(raw);
  if (keys.length === 0) return null;
  const mode = modeOf(path);
  const dir = modeOf(dirname(path));
  if (dir !== null && (dir & 0o011) === 0) return null;
  return secretsWarning(path, mode, keys);
}

function modeOf(path: string): number | null {
  try {
    return statSync(path).mode;
  } catch {
    return null;
  }
}
