/**
 * The config file: JSON, validated with zod. Secrets may be written "env:VAR_NAME".
 * Nothing is read at import time; `loadConfig` does the I/O.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { Secret } from "./secret.js";

export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** A secret string, or "env:NAME" read from the environment when the config is loaded. */
const secret = (env: NodeJS.ProcessEnv) =>
  z
    .string()
    .min(1)
    .transform((value, ctx) => {
      if (!value.startsWith("env:")) return new Secret(value);
      const name = value.slice(4);
      const fromEnv = env[name];
      if (fromEnv === undefined || fromEnv === "") {
        ctx.addIssue({ code: "custom", message: `environment variable ${name} is not set` });
        return z.NEVER;
      }
      return new Secret(fromEnv);
    });

const authSchema = (env: NodeJS.ProcessEnv) =>
  z.union([
    z.strictObject({ token: secret(env) }),
    z.strictObject({
      tokenUrl: z.url(),
      clientId: secret(env),
      clientSecret: secret(env),
      username: secret(env),
      password: secret(env),
      scope: z.string().optional(),
    }),
  ]);

const positiveInt = z.number().int().positive();

export function configSchema(env: NodeJS.ProcessEnv = process.env) {
  const auth = authSchema(env);
  return z
    .strictObject({
      $schema: z.string().optional(),
      baseUrl: z.url(),
      allowInsecureHttp: z.boolean().default(false),
      auth: auth.optional(),
      companies: z
        .array(
          z.strictObject({
            id: positiveInt,
            reportIds: z.array(positiveInt).default([]),
            auth: auth.optional(),
          }),
        )
        .min(1),
      database: z.string().min(1).default("./tas.db"),
      redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
      /** Prefix of every BullMQ key, so several deployments can share one Redis. */
      queuePrefix: z.string().min(1).default("tas"),
      http: z
        .strictObject({
          timeoutMs: positiveInt.default(30_000),
          maxAttempts: positiveInt.max(20).default(5),
          maxRequestsPerSecond: z.number().positive().default(20),
          connections: positiveInt.default(8),
        })
        .prefault({}),
      sync: z
        .strictObject({
          everyMinutes: positiveInt.default(15),
        })
        .prefault({}),
      push: z
        .strictObject({
          /** Shared create rate; null: no shared limit (a bulk push to a service that allows it). */
          ratePerSecond: z.number().positive().nullable().default(10),
          concurrency: positiveInt.default(4),
          maxAttempts: positiveInt.max(50).default(8),
          /** How long a worker's claim on a job lasts unrenewed: a killed worker's jobs run again after it. */
          lockDurationMs: positiveInt.min(1000).default(30_000),
        })
        .prefault({}),
      logLevel: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    })
    .superRefine((cfg, ctx) => {
      const url = new URL(cfg.baseUrl);
      if (url.protocol === "http:" && !LOOPBACK.test(url.hostname) && !cfg.allowInsecureHttp) {
        ctx.addIssue({
          code: "custom",
          path: ["baseUrl"],
          message: `http:// to a non-loopback host (${url.hostname}) sends the token in clear; use https:// or set "allowInsecureHttp": true`,
        });
      }
      const seen = new Set<number>();
      cfg.companies.forEach((c, i) => {
        if (seen.has(c.id))
          ctx.addIssue({
            code: "custom",
            path: ["companies", i, "id"],
            message: `duplicate company id ${c.id}`,
          });
        seen.add(c.id);
        if (!c.auth && !cfg.auth) {
          ctx.addIssue({
            code: "custom",
            path: ["companies", i, "auth"],
            message: "no auth here and no default auth at the top level",
          });
        }
      });
    });
}

export type Config = z.infer<ReturnType<typeof configSchema>>;
export type AuthConfig = NonNullable<Config["auth"]>;
export type CompanyConfig = Config["companies"][number];

/** Which file to read: --config, else TAS_CONFIG, else ./tas-sync.config.json. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.TAS_CONFIG ?? "tas-sync.config.json");
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length
    ? issue.path
        .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
        .join("")
        .replace(/^\./, "")
    : "(root)";
  return `${path}: ${issue.message}`;
}

/**
 * A failed union (the two auth shapes) reports only "auth: Invalid input"; report instead
 * the issues of the branch the object was meant to be: the one whose keys it has (no
 * unrecognized keys), else the one with the fewest issues. Paths become absolute.
 */
function expandUnions(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const score = (branch: z.core.$ZodIssue[]) =>
    (branch.some((i) => i.code === "unrecognized_keys" && i.path.length === 0) ? 1000 : 0) + branch.length;
  const best = [...issue.errors].sort((a, b) => score(a) - score(b))[0] ?? [];
  return best.flatMap((i) => expandUnions({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue));
}

/** Validate an already-parsed config object. Throws ConfigError naming the key path. */
export function parseConfig(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema(env).safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.flatMap(expandUnions).map(formatIssue);
    throw new ConfigError(`invalid config ${source}: ${lines.join("; ")}`);
  }
  return result.data;
}

export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Config {
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
  return parseConfig(raw, path, env);
}

/** The auth that applies to a company: its own, else the default. */
export function authFor(cfg: Config, company: CompanyConfig): AuthConfig {
  const auth = company.auth ?? cfg.auth;
  if (!auth) throw new ConfigError(`companies[${company.id}]: no auth configured`);
  return auth;
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
