/**
 * `tas-sync simulate`: runs the simulator in the foreground until SIGINT/SIGTERM.
 * Argument parsing and printing only; the server itself is startSimulator().
 */
import { parseArgs } from "node:util";
import { argsError } from "../text/args-error.js";
import { describeSimulator, listeningEvent } from "./command-output.js";
import { DEFAULT_BASE_PATH, startSimulator } from "./server.js";

export const SIMULATE_USAGE = `Usage: tas-sync simulate [options]

Runs a local simulator of the Test Automation Service (plans, scheduled reports,
create scenario, OAuth2 password grant) with generated, seed-reproducible data.
Prints the base URL, logins and a ready-to-paste tas-sync config, then serves
until Ctrl+C (SIGINT) or SIGTERM.

Options:
  --port N                   TCP port on 127.0.0.1 (default 0: pick a free port)
  --host H                   Address to bind (default 127.0.0.1)
  --base-path P              REST root path (default ${DEFAULT_BASE_PATH})
  --companies N              Number of companies, ids 5251, 5252, ... (default 2)
  --plans N                  Plans per company (default 50)
  --reports N                Scheduled reports per company (default 3)
  --seed N                   Seed of the generated data and fault dice (default 1)
  --token-ttl S              Lifetime of issued access tokens, seconds (default 3600)
  --error-rate F             Fraction 0..1 of /api requests answered 500 (default 0)
  --rate-limit-rate F        Fraction 0..1 of /api requests answered 429 (default 0)
  --retry-after S            Retry-After seconds sent with each 429 (default 1)
  --latency-ms N             Delay before answering each /api request (default 0)
  --drop-after-commit-rate F Fraction 0..1 of successful creates that are stored and
                             then have their connection cut without an answer (default 0)
  --drop-half-rate F         Fraction 0..1 of successful creates that are stored, answered
                             with 200, the headers and half the body, then cut (default 0)
  --plan-list-delay-ms N     Delay before the first byte of every GET /api/plans
                             (not reports, not creates); the list sent is the one at
                             the moment the request arrived (default 0)
  --plan-list-delay-once-ms N
                             Delay of the next GET /api/plans only; the option then
                             resets itself to 0 (default 0)
  --slow-rate F              Fraction 0..1 of /api requests answered only after
                             --slow-ms, to outlast a client's timeout (default 0)
  --slow-ms N                How long a slow request waits (default 60000)
  --rate-limit-burst N       After a 429 fires, answer the next N /api requests 429
                             too (default 0)
  --rate-limit-company ID    The 429 faults apply only to requests with this company's
                             token (default 0: every company)
  --refuse-company ID        Refuse this company's tokens, static or issued: 401 on /api
                             (the token endpoint still grants them) (default 0: none)
  --names-not-unique         Create a repeated (project, name) again instead of answering
                             400 INVALID_SCENARIO_NAME (the real service refuses it)
  --drift                    After the first plan list served to a company, its plans
                             drift: a new field (labels), a new screen_shot_type value
                             (ON_FAILURE_ONLY), ANDROID metadata versionCode as a string,
                             and on every tenth plan plan_parallel_test_limit as a string
                             (a documented field of another type: refused)
  --json                     Print one JSON line {"event":"listening",...} instead of text
  -h, --help                 Show this help

Faults apply to /api/* only. They can be changed while running, by their camelCase
names (errorRate, rateLimitRate, retryAfterSeconds, latencyMs, dropAfterCommitRate,
dropHalfRate, planListDelayMs, planListDelayOnceMs, slowRate, slowMs, rateLimitBurst,
rateLimitCompanyId, refuseCompanyId, namesNotUnique 0 or 1):
  curl -X PUT -d '{"errorRate":0.1}' <base URL>/__admin/faults
  curl -X PUT -d '{"planListDelayOnceMs":5000}' <base URL>/__admin/faults
GET <base URL>/__admin/stats counts requests by route and status; "held" is how many
are waiting in a delay right now. GET <base URL>/__admin/creates counts the scenarios
created per "<project_id>/<scenario_name>". Drift can be armed while running, or made at once:
  curl -X PUT -d '{"armed":true}' <base URL>/__admin/drift
  curl -X POST <base URL>/__admin/companies/5251/drift
`;

export interface SimulateIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Resolves when the simulator should stop; defaults to the first SIGINT/SIGTERM. */
  stop: Promise<unknown>;
}

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  "base-path": { type: "string" },
  companies: { type: "string" },
  plans: { type: "string" },
  reports: { type: "string" },
  seed: { type: "string" },
  "token-ttl": { type: "string" },
  "error-rate": { type: "string" },
  "rate-limit-rate": { type: "string" },
  "retry-after": { type: "string" },
  "latency-ms": { type: "string" },
  "drop-after-commit-rate": { type: "string" },
  "drop-half-rate": { type: "string" },
  "plan-list-delay-ms": { type: "string" },
  "plan-list-delay-once-ms": { type: "string" },
  "slow-rate": { type: "string" },
  "rate-limit-company": { type: "string" },
  "refuse-company": { type: "string" },
  "names-not-unique": { type: "boolean" },
  "slow-ms": { type: "string" },
  "rate-limit-burst": { type: "string" },
  drift: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** A number flag, or undefined when absent; throws on text that is not a number. */
function num(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n))
    throw new RangeError(`--${flag} must be a number, got "${text}"`);
  return n;
}

/** Bad flags or values (exit 2), as opposed to failing to start, e.g. port in use (exit 1). */
function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof RangeError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"));
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/** Runs `tas-sync simulate`; resolves with the exit code once stopped. */
export async function runSimulateCommand(argv: string[], io: Partial<SimulateIo> = {}): Promise<number> {
  const out = io.out ?? ((text: string) => process.stdout.write(text));
  const err = io.err ?? ((text: string) => process.stderr.write(text));
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let json: boolean;
  let plans: number;
  try {
    const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
    if (values.help) {
      out(SIMULATE_USAGE);
      return 0;
    }
    json = values.json;
    plans = num("plans", values.plans) ?? 50;
    sim = await startSimulator({
      port: num("port", values.port),
      host: values.host,
      basePath: values["base-path"],
      companies: num("companies", values.companies),
      plans,
      reports: num("reports", values.reports),
      seed: num("seed", values.seed),
      tokenTtlSeconds: num("token-ttl", values["token-ttl"]),
      drift: values.drift,
      faults: {
        errorRate: num("error-rate", values["error-rate"]),
        rateLimitRate: num("rate-limit-rate", values["rate-limit-rate"]),
        retryAfterSeconds: num("retry-after", values["retry-after"]),
        latencyMs: num("latency-ms", values["latency-ms"]),
        dropAfterCommitRate: num("drop-after-commit-rate", values["drop-after-commit-rate"]),
        dropHalfRate: num("drop-half-rate", values["drop-half-rate"]),
        planListDelayMs: num("plan-list-delay-ms", values["plan-list-delay-ms"]),
        planListDelayOnceMs: num("plan-list-delay-once-ms", values["plan-list-delay-once-ms"]),
        slowRate: num("slow-rate", values["slow-rate"]),
        slowMs: num("slow-ms", values["slow-ms"]),
        rateLimitBurst: num("rate-limit-burst", values["rate-limit-burst"]),
        rateLimitCompanyId: num("rate-limit-company", values["rate-limit-company"]),
        refuseCompanyId: num("refuse-company", values["refuse-company"]),
        namesNotUnique: values["names-not-unique"] ? 1 : undefined,
      },
    });
  } catch (error) {
    const message = isUsageError(error)
      ? argsError(error, Object.keys(OPTIONS))
      : error instanceof Error
        ? error.message
        : String(error);
    err(`tas-sync simulate: ${message}\n`);
    if (!isUsageError(error)) return 1;
    err("Run 'tas-sync simulate --help' for usage.\n");
    return 2;
  }

  const stop = io.stop ?? untilSignal();
  const summary = { ...sim, plansPerCompany: plans, faults: sim.state.faults, drift: sim.state.drift.armed };
  out(json ? `${listeningEvent(summary)}\n` : describeSimulator(summary));
  await stop;
  await sim.close();
  if (!json) err("Simulator stopped.\n");
  return 0;
}
