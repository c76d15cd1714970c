/** What `tas-sync simulate` prints: a human summary, or one JSON line for programs. */
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "./client.js";
import type { FaultOptions } from "./faults.js";
import type { SimCompanyInfo } from "./state.js";

export interface SimulatorSummary {
  baseUrl: string;
  tokenUrl: string;
  port: number;
  companies: SimCompanyInfo[];
  plansPerCompany: number;
  faults: FaultOptions;
  /** Drift armed (simulate --drift). */
  drift: boolean;
}

/**
 * A tas-sync config file for this simulator; the first company uses the top-level login, the
 * others override it. Overrides are complete password-grant objects because the config schema
 * (src/config.ts) accepts an auth block only as a whole, not as a username/password patch.
 */
function tasSyncConfig(sim: Pick<SimulatorSummary, "baseUrl" | "tokenUrl" | "companies">) {
  const login = (c: SimCompanyInfo | undefined) => ({
    tokenUrl: sim.tokenUrl,
    clientId: SIM_CLIENT_ID,
    clientSecret: SIM_CLIENT_SECRET,
    username: c?.username ?? "",
    password: c?.password ?? "",
  });
  const [first] = sim.companies;
  return {
    baseUrl: sim.baseUrl,
    auth: login(first),
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      ...(c === first ? {} : { auth: login(c) }),
    })),
  };
}

/** camelCase -> snake_case, for the keys of --json output (the house style of every JSON report). */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function snakeKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), v]));
}

/**
 * The single line printed with --json (benchmarks and the chaos runner parse it). Keys are
 * snake_case like every other JSON report; `config` is a tas-sync config file and so keeps the
 * config file's own (camelCase) keys, ready to be written out as is.
 */
export function listeningEvent(sim: SimulatorSummary): string {
  return JSON.stringify({
    event: "listening",
    base_url: sim.baseUrl,
    token_url: sim.tokenUrl,
    port: sim.port,
    client_id: SIM_CLIENT_ID,
    client_secret: SIM_CLIENT_SECRET,
    plans_per_company: sim.plansPerCompany,
    faults: snakeKeys(sim.faults as unknown as Record<string, unknown>),
    drift: sim.drift,
    companies: sim.companies.map((c) => snakeKeys(c as unknown as Record<string, unknown>)),
    config: tasSyncConfig(sim),
  });
}

/** What a program reads back from the `listening` line (see listeningEvent), in camelCase. */
export interface ListeningInfo {
  baseUrl: string;
  tokenUrl: string;
  companies: Pick<SimCompanyInfo, "id" | "staticToken" | "projectIds" | "reportIds">[];
  config: Record<string, unknown>;
}

/** Parses the `listening` line that `simulate --json` prints (benchmarks, the chaos runner). */
export function readListeningEvent(line: string): ListeningInfo {
  const event = JSON.parse(line) as {
    base_url: string;
    token_url: string;
    companies: { id: number; static_token: string; project_ids: number[]; report_ids: number[] }[];
    config: Record<string, unknown>;
  };
  return {
    baseUrl: event.base_url,
    tokenUrl: event.token_url,
    companies: event.companies.map((c) => ({
      id: c.id,
      staticToken: c.static_token,
      projectIds: c.project_ids,
      reportIds: c.report_ids,
    })),
    config: event.config,
  };
}

export function describeSimulator(sim: SimulatorSummary): string {
  const base = new URL(sim.baseUrl);
  const admin = `${sim.baseUrl}/__admin`;
  const faults = Object.entries(sim.faults)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
  const lines = [
    "Test Automation Service simulator listening",
    `  base URL:   ${sim.baseUrl}`,
    `  token URL:  ${sim.tokenUrl}`,
    `  client:     id ${SIM_CLIENT_ID}, secret ${SIM_CLIENT_SECRET} (HTTP Basic, password grant)`,
    `  admin:      ${admin}/stats | /scenarios | /creates | /faults | /companies (no auth)`,
    `  faults:     ${faults}`,
    `  drift:      ${sim.drift ? "armed: each company's plans change after its first plan list" : "off"}`,
    "",
  ];
  for (const c of sim.companies) {
    lines.push(
      `Company ${c.id} (${sim.plansPerCompany} plans)`,
      `  username / password:  ${c.username} / ${c.password}`,
      `  static bearer token:  ${c.staticToken}`,
      `  project ids:          ${c.projectIds.join(", ")}`,
      `  report ids:           ${c.reportIds.join(", ") || "(none)"}`,
      `  try:                  curl -H 'Authorization: Bearer ${c.staticToken}' ${sim.baseUrl}/api/plans`,
      "",
    );
  }
  lines.push(
    "tas-sync config (paste into your config file):",
    JSON.stringify(tasSyncConfig(sim), null, 2),
    "",
    `Listening on ${base.host}. Stop with Ctrl+C.`,
  );
  return `${lines.join("\n")}\n`;
}
