/** Which store a `database` value names: a postgres:// URL, or else a SQLite file path. */
import { UserError } from "../errors.js";
import { Secret } from "../secret.js";
import { resolveEnv } from "./fields.js";

export type DatabaseTarget =
  | { dialect: "sqlite"; path: string; display: string }
  /** The URL may hold a password: it is a Secret; `display` has the password masked. */
  | { dialect: "postgres"; url: Secret; display: string };

const POSTGRES = /^postgres(ql)?:\/\//i;

export function databaseTarget(value: string): DatabaseTarget {
  if (POSTGRES.test(value)) return { dialect: "postgres", url: new Secret(value), display: maskUrl(value) };
  return { dialect: "sqlite", path: value, display: value };
}

/** The URL with its password (if any) shown as ***, for logs and messages. */
export function maskUrl(value: string): string {
  try {
    const u = new URL(value);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

/** A problem with a postgres URL (said without quoting it: it may hold a password), or null. */
export function postgresUrlProblem(value: string): string | null {
  try {
    const u = new URL(value);
    if (!u.hostname && !u.searchParams.get("host")) return "the postgres URL has no host";
    return null;
  } catch {
    return "not a valid postgres:// URL";
  }
}

/**
 * The store a `--db` flag names: a path, a postgres:// URL, or "env:NAME" (the variable's value,
 * so that a password stays out of the process list). Throws a one-line UserError.
 */
export function databaseFromFlag(value: string, env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const resolved = resolveEnv(value, env);
  if ("problem" in resolved) throw new UserError(`--db ${value}: ${resolved.problem}`);
  const target = databaseTarget(resolved.value);
  const problem = target.dialect === "postgres" ? postgresUrlProblem(resolved.value) : null;
  if (problem) throw new UserError(`--db${value.startsWith("env:") ? ` ${value}` : ""}: ${problem}`);
  return target;
}
