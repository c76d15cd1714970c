/** zod field types of the config: secrets ("env:NAME"), URLs of a given scheme, durations. */
import { z } from "zod";
import { UserError } from "../errors.js";
import { Secret } from "../secret.js";
import { parseDuration } from "./duration.js";

/**
 * The value of "env:NAME" from `env`, or the value itself when it is no "env:" reference; or
 * why the variable gives none (the message names the variable, never a value).
 */
export function resolveEnv(value: string, env: NodeJS.ProcessEnv): { value: string } | { problem: string } {
  if (!value.startsWith("env:")) return { value };
  const name = value.slice(4);
  const found = env[name];
  if (found === undefined) return { problem: `environment variable ${name} is not set` };
  if (found === "") return { problem: `environment variable ${name} is empty` };
  return { value: found };
}

/** As resolveEnv; a problem becomes an issue of the field. */
function fromEnv(value: string, env: NodeJS.ProcessEnv, ctx: z.RefinementCtx): string | typeof z.NEVER {
  const resolved = resolveEnv(value, env);
  if ("value" in resolved) return resolved.value;
  ctx.addIssue({ code: "custom", message: resolved.problem });
  return z.NEVER;
}

/**
 * When the service's secrets are read: "load" with the config (a command that talks to the
 * service, the webhook or the server's clients), or "use": a read-only command (query,
 * status, ...) loads a config whose "env:" secrets are unset, and only a reveal() fails.
 */
export type SecretsAt = "load" | "use";

/** A string that may be written "env:NAME" (read when the config is loaded). */
export const envString = (env: NodeJS.ProcessEnv) =>
  z
    .string()
    .min(1)
    .transform((value, ctx) => fromEnv(value, env, ctx));

/**
 * A secret string, or "env:NAME"; held in a `Secret` so it cannot be printed by accident. With
 * `at` "use", an unset variable becomes an UnsetSecret instead of an issue.
 */
export const secret = (env: NodeJS.ProcessEnv, at: SecretsAt = "load") =>
  z
    .string()
    .min(1)
    .transform((raw, ctx) => {
      const resolved = resolveEnv(raw, env);
      if ("value" in resolved) return new Secret(resolved.value);
      if (at === "use") return new UnsetSecret(resolved.problem);
      ctx.addIssue({ code: "custom", message: resolved.problem });
      return z.NEVER;
    });

/** A secret whose "env:" variable was unset when a read-only command loaded the config. */
export class UnsetSecret extends Secret {
  readonly #problem: string;
  constructor(problem: string) {
    super("");
    this.#problem = problem;
  }
  override reveal(): string {
    throw new UnsetSecretError(`${this.#problem} (this command needs it to talk to the service)`);
  }
}

export class UnsetSecretError extends UserError {
  override name = "UnsetSecretError";
}

function urlProblem(value: string, protocols: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected a URL (${protocols.map((p) => `${p}//`).join(" or ")}...)`;
  }
  if (!protocols.includes(url.protocol))
    return `expected a ${protocols.map((p) => p.slice(0, -1)).join(" or ")} URL, got ${url.protocol}//`;
  if (!url.hostname) return "the URL has no host";
  return null;
}

/**
 * A URL whose scheme is one of `protocols` ("https:"). The value is quoted in the issue
 * unless `quote` is false (a Redis URL may hold a password).
 */
export const url = (protocols: readonly string[], quote = true) =>
  z.string().superRefine((value, ctx) => {
    const problem = urlProblem(value, protocols);
    if (problem) ctx.addIssue({ code: "custom", message: quote ? `${problem}: "${value}"` : problem });
  });

/** As `url`, for a URL that may carry a secret (a webhook token): never quoted, held as a Secret. */
export const secretUrl = (env: NodeJS.ProcessEnv, protocols: readonly string[], at: SecretsAt = "load") =>
  secret(env, at).transform((value, ctx) => {
    if (value instanceof UnsetSecret) return value;
    const problem = urlProblem(value.reveal(), protocols);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return value;
  });

/** A duration text ("30s", "15m", "1h") as milliseconds, at least `minMs`. */
export const duration = (minMs = 1000) =>
  z.string().transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === null) {
      ctx.addIssue({
        code: "custom",
        message: `expected a duration like "30s", "15m" or "1h", got "${value}"`,
      });
      return z.NEVER;
    }
    if (ms < minMs) {
      ctx.addIssue({ code: "custom", message: `must be at least ${minMs / 1000}s, got "${value}"` });
      return z.NEVER;
    }
    return ms;
  });

/** How long something is kept: a duration ("90d"), at least `minMs`, or "never" to keep it for ever (null). */
export const retention = (minMs = 3_600_000) =>
  z.union([z.literal("never"), duration(minMs)]).transform((v) => (v === "never" ? null : v));
