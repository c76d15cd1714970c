/** The zod schema of the config file. Secrets may be written "env:NAME"; durations as "15m". */
import { z } from "zod";
import { Secret } from "../secret.js";
import { type DatabaseTarget, databaseTarget, postgresUrlProblem } from "./database.js";
import { parseDuration } from "./duration.js";
import {
  duration,
  envString,
  retention,
  type SecretsAt,
  secret,
  secretUrl,
  UnsetSecret,
  url,
} from "./fields.js";

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;
const HTTP = ["http:", "https:"] as const;
const REDIS = ["redis:", "rediss:"] as const;

const DEFAULT_SYNC_EVERY_MS = 15 * 60_000;
/** A company is stale when its last success is older than this many schedule periods. */
export const STALE_PERIODS = 3;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

const positiveInt = z.number().int().positive();

const authSchema = (env: NodeJS.ProcessEnv, at: SecretsAt) =>
  z.union([
    z.strictObject({ token: secret(env, at) }),
    z.strictObject({
      tokenUrl: url(HTTP),
      clientId: secret(env, at),
      clientSecret: secret(env, at),
      username: secret(env, at),
      password: secret(env, at),
      scope: z.string().optional(),
    }),
  ]);

const databaseSchema = (env: NodeJS.ProcessEnv) =>
  envString(env).transform((value, ctx): DatabaseTarget => {
    const target = databaseTarget(value);
    const problem = target.dialect === "postgres" ? postgresUrlProblem(value) : null;
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return target;
  });

/** What a record outside the accepted schema gets: stored and recorded, refused, or stored without it. */
const contract = z.enum(["evolve", "freeze", "discard_value"]).default("evolve");

/** `schema`: how syncs observe the service's schema (its defaults are a sync's when none is given). */
export const schemaSettings = z.strictObject({
  /** Observe each new or changed record's JSON paths, types and values (schema_paths). */
  observe: z.boolean().default(true),
  /** Distinct strings listed per path, past which its values are not kept. */
  valueCap: positiveInt.max(1000).default(50),
  contract: z
    .strictObject({
      plan: contract,
      scheduled_report: contract,
    })
    .prefault({}),
});

/** `query.timeout`: a duration, or "0" for no limit. */
const timeoutOrNone = z.string().transform((value, ctx) => {
  if (value.trim() === "0") return 0;
  const ms = parseDuration(value);
  if (ms === null || ms < 1000) {
    ctx.addIssue({
      code: "custom",
      message: `expected a duration of at least 1s like "30s" or "5m", or "0" for none, got "${value}"`,
    });
    return z.NEVER;
  }
  return ms;
});

/** `query`: bounds of `tas-sync query`. */
const querySettings = z.strictObject({
  timeout: timeoutOrNone.default(60_000),
  maxRows: z.number().int().min(0).default(1000),
});

const syncSchema = z
  .strictObject({
    every: duration().optional(),
    /** The old name of `every`, in minutes. */
    everyMinutes: positiveInt.optional(),
    concurrency: positiveInt.max(64).default(4),
    staleAfter: duration().optional(),
    /** How long a sync's claim on its company lasts unrenewed (renewed every sixth of it). */
    lease: duration(2000).default(60_000),
    /**
     * MiB of new or changed plans parsed while the list downloads (before the write
     * transaction); past it they wait in a temporary file and are parsed while it is written.
     */
    readAheadMiB: z.number().int().min(0).max(1024).default(1),
  })
  .prefault({})
  .transform((s, ctx) => {
    if (s.every !== undefined && s.everyMinutes !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["everyMinutes"],
        message: 'give only sync.every (sync.everyMinutes is its old name; "15m" = 15 minutes)',
      });
      return z.NEVER;
    }
    const every = s.every ?? (s.everyMinutes === undefined ? DEFAULT_SYNC_EVERY_MS : s.everyMinutes * 60_000);
    return {
      every,
      concurrency: s.concurrency,
      staleAfter: s.staleAfter ?? null,
      leaseMs: s.lease,
      readAheadBytes: s.readAheadMiB * 1024 * 1024,
    };
  });

const DAY_MS = 86_400_000;

/**
 * `retention`: how long bookkeeping is kept (null: for ever). Plan and report history (versions)
 * is the product and has no key: it is never pruned.
 */
const retentionSchema = z
  .strictObject({
    /** Run records (sync_runs) and their errors (sync_errors). */
    runs: retention().default(90 * DAY_MS),
    /** Rejected records of runs that old. */
    rejected: retention().default(90 * DAY_MS),
    /** Settled push rows (created, exists, failed) and seed-file rejections. */
    pushes: retention().default(null),
    /** Acknowledged schema changes. */
    schemaChanges: retention().default(null),
  })
  .prefault({});

const serverSchema = (env: NodeJS.ProcessEnv, at: SecretsAt) =>
  z
    .strictObject({
      host: z.string().min(1).default("127.0.0.1"),
      port: z.number().int().min(0).max(65_535).default(9464),
      username: z.string().min(1).optional(),
      password: secret(env, at).optional(),
      /** Bull Board lets its users retry, promote and remove jobs only when true. */
      dashboardWritable: z.boolean().default(false),
      /** Serve /metrics and /queues without credentials on a non-loopback address. */
      allowUnauthenticated: z.boolean().default(false),
      /** Host names served without credentials besides the bound address and localhost. */
      allowedHosts: z
        .array(
          z
            .string()
            .regex(
              /^(\[[0-9a-fA-F:.]+\]|[^\s/:@[\]]+)$/,
              'expected a host name like "tas.internal" (no scheme, port or path)',
            ),
        )
        .default([]),
    })
    .prefault({})
    .superRefine((s, ctx) => {
      if ((s.username === undefined) !== (s.password === undefined))
        ctx.addIssue({ code: "custom", message: "set both server.username and server.password, or neither" });
    });

/** The host of a plain-http URL off loopback, or null (also for text that is not a URL). */
function plainHttpHost(text: string): string | null {
  if (!URL.canParse(text)) return null;
  const u = new URL(text);
  return u.protocol === "http:" && !isLoopback(u.hostname) ? u.hostname : null;
}

/**
 * The schema, reading "env:" values from `env`. With `secretsAt: "use"` (read-only commands)
 * an unset secret of the service, the webhook or the server loads and fails only when revealed.
 */
export function configSchema(env: NodeJS.ProcessEnv = process.env, secretsAt: SecretsAt = "load") {
  const auth = authSchema(env, secretsAt);
  return z
    .strictObject({
      $schema: z.string().optional(),
      baseUrl: url(HTTP),
      allowInsecureHttp: z.boolean().default(false),
      auth: auth.optional(),
      companies: z
        .array(
          z.strictObject({
            id: positiveInt,
            reportIds: z.array(positiveInt).default([]),
            auth: auth.optional(),
            /** This company's schedule, instead of sync.every. */
            every: duration().optional(),
          }),
        )
        .min(1),
      database: databaseSchema(env).default(databaseTarget("./tas.db")),
      redisUrl: envString(env).pipe(url(REDIS, false)).default("redis://127.0.0.1:6379"),
      /** Prefix of every BullMQ key, so several deployments can share one Redis. */
      queuePrefix: z.string().min(1).default("tas"),
      http: z
        .strictObject({
          timeoutMs: positiveInt.default(30_000),
          maxAttempts: positiveInt.max(20).default(5),
          maxRequestsPerSecond: z.number().positive().default(20),
          connections: positiveInt.default(8),
          /** A response body larger than this is refused (the plan list is spooled to disk). */
          maxResponseBytes: positiveInt.default(1024 * 1024 * 1024),
        })
        .prefault({}),
      sync: syncSchema,
      push: z
        .strictObject({
          /** Shared create rate; null: no shared limit (a bulk push to a service that allows it). */
          ratePerSecond: z.number().positive().nullable().default(10),
          concurrency: positiveInt.default(4),
          maxAttempts: positiveInt.max(50).default(8),
          /** How long a worker's claim on a job lasts unrenewed: a killed worker's jobs run again after it. */
          lockDurationMs: positiveInt.min(1000).default(30_000),
          /**
           * Who waits after a 429: "company", only the company whose token got it (a service
           * that limits per token); "host", every company (a service that limits per host).
           */
          rateLimitScope: z.enum(["company", "host"]).default("company"),
          /**
           * The service refuses a second scenario of the same name in a project (API-FACTS): a
           * create whose answer was lost is sent again, and a name clash says it exists. false:
           * such a row is never sent again; it fails as OUTCOME_UNKNOWN for a person to check.
           */
          uniqueNames: z.boolean().default(true),
          /**
           * How often rows are given a job again, and held companies probed (the daemon and
           * push --wait): a row left queued without a job waits at most this long.
           */
          reconcileEveryMs: positiveInt.min(100).default(60_000),
        })
        .prefault({}),
      server: serverSchema(env, secretsAt),
      schema: schemaSettings.prefault({}),
      query: querySettings.prefault({}),
      retention: retentionSchema,
      alerts: z
        .strictObject({
          webhookUrl: secretUrl(env, HTTP, secretsAt).optional(),
          timeoutMs: positiveInt.default(10_000),
          /** Plain http:// to a webhook off this machine, as allowInsecureHttp is for baseUrl. */
          allowInsecureHttp: z.boolean().default(false),
        })
        .prefault({}),
      /** The freshness thresholds of `tas-sync dbt-sources`, instead of those of the schedules. */
      dbt: z
        .strictObject({
          warnAfter: duration(60_000).optional(),
          errorAfter: duration(60_000).optional(),
        })
        .prefault({}),
      /** How long a stopping daemon lets running jobs finish. */
      shutdownGraceMs: positiveInt.default(30_000),
      logLevel: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    })
    .superRefine((cfg, ctx) => {
      const issue = (path: (string | number)[], message: string) =>
        ctx.addIssue({ code: "custom", path, message });
      // Refinements run even when a field failed: baseUrl may not be a URL, the webhook URL
      // missing or not a Secret here.
      const base = cfg.allowInsecureHttp ? null : plainHttpHost(cfg.baseUrl);
      if (base !== null)
        issue(
          ["baseUrl"],
          `http:// to a non-loopback host (${base}) sends the token in clear; use https:// or set "allowInsecureHttp": true`,
        );
      const { webhookUrl, allowInsecureHttp } = cfg.alerts ?? {};
      const hookIsSet = webhookUrl instanceof Secret && !(webhookUrl instanceof UnsetSecret);
      const hook = hookIsSet && !allowInsecureHttp ? plainHttpHost(webhookUrl.reveal()) : null;
      if (hook !== null)
        issue(
          ["alerts", "webhookUrl"],
          `http:// to a non-loopback host (${hook}) sends the alerts and any credentials of the URL in clear; use https:// or set "alerts.allowInsecureHttp": true`,
        );
      const seen = new Set<number>();
      cfg.companies.forEach((c, i) => {
        if (seen.has(c.id)) issue(["companies", i, "id"], `duplicate company id ${c.id}`);
        seen.add(c.id);
        if (!c.auth && !cfg.auth)
          issue(["companies", i, "auth"], "no auth here and no default auth at the top level");
      });
    });
}

export type Config = z.infer<ReturnType<typeof configSchema>>;
