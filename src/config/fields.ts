/** zod field types of the config: secrets ("env:NAME"), URLs of a given scheme, durations. */
import { z } from "zod";
import { Secret } from "../secret.js";
import { parseDuration } from "./duration.js";

/** The value of "env:NAME" from `env`, or an issue that names the variable (never a value). */
function fromEnv(value: string, env: NodeJS.ProcessEnv, ctx: z.RefinementCtx): string | typeof z.NEVER {
  if (!value.startsWith("env:")) return value;
  const name = value.slice(4);
  const found = env[name];
  if (found === undefined) {
    ctx.addIssue({ code: "custom", message: `environment variable ${name} is not set` });
    return z.NEVER;
  }
  if (found === "") {
    ctx.addIssue({ code: "custom", message: `environment variable ${name} is empty` });
    return z.NEVER;
  }
  return found;
}

/** A string that may be written "env:NAME" (read when the config is loaded). */
export const envString = (env: NodeJS.ProcessEnv) =>
  z
    .string()
    .min(1)
    .transform((value, ctx) => fromEnv(value, env, ctx));

/** A secret string, or "env:NAME"; held in a `Secret` so it cannot be printed by accident. */
export const secret = (env: NodeJS.ProcessEnv) => envString(env).transform((v) => new Secret(v));

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
export const secretUrl = (env: NodeJS.ProcessEnv, protocols: readonly string[]) =>
  envString(env).transform((value, ctx) => {
    const problem = urlProblem(value, protocols);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return new Secret(value);
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
