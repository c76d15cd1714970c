/**
 * Starts the Test Automation Service simulator: a plain node:http server on 127.0.0.1 with
 * keep-alive, serving generated, seed-reproducible data under a base path like the real
 * self-hosted edition (`http://host/Testinium.RestApi/api/...`).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "./client.js";
import { DEFAULT_FAULTS, type FaultOptions, parseFaultPatch } from "./faults.js";
import { createRequestListener } from "./router.js";
import { type SimCompanyInfo, SimulatorState } from "./state.js";

export type { FaultOptions } from "./faults.js";
export type { SimCompanyInfo } from "./state.js";
export { SimulatorState } from "./state.js";
export { SIM_CLIENT_ID, SIM_CLIENT_SECRET };

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  companies?: number;
  /** Plans per company. */
  plans?: number;
  /** Scheduled reports per company. */
  reports?: number;
  seed?: number;
  tokenTtlSeconds?: number;
  faults?: Partial<FaultOptions>;
  basePath?: string;
  /** The service's clock, ms since the epoch (tokens expire by it); default Date.now. Tests inject one. */
  now?: () => number;
  /**
   * Drift armed from the start: after the first plan list served to a company, its plans change
   * (a new field, a new enum value, a type change; see drift.ts). Also PUT __admin/drift.
   */
  drift?: boolean;
  /**
   * Alphanumeric text woven into the client secret (`clientSecret`), every company's password
   * and static token, for tests that search for leaked secrets. None by default.
   */
  secretTag?: string;
}

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:PORT/Testinium.RestApi */
  baseUrl: string;
  /** baseUrl + "/oauth/token" */
  tokenUrl: string;
  port: number;
  /** Companies as they were at start (see GET __admin/companies for the current view). */
  companies: SimCompanyInfo[];
  close(): Promise<void>;
  /** The OAuth2 client secret it accepts (SIM_CLIENT_SECRET unless `secretTag` was given). */
  clientSecret: string;
  /** In-process access to the model, for tests. */
  state: SimulatorState;
}

export const DEFAULT_BASE_PATH = "/Testinium.RestApi";
// Longer than common client pools' idle timeout (undici: 4 s), so the client closes first
// and never sends on a socket the server is closing.
const KEEP_ALIVE_MS = 30_000;

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < min) throw new RangeError(`${name} must be an integer >= ${min}`);
  return n;
}

/** "" or "/a/b": leading slash, no trailing slash. */
function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, "");
  return trimmed === "" || trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Generates the data, starts listening and resolves once the server accepts connections. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  if (opts.secretTag !== undefined && !/^[A-Za-z0-9]+$/.test(opts.secretTag))
    throw new RangeError("secretTag must be letters and digits");
  const faults = parseFaultPatch(opts.faults ?? {});
  if (!faults.ok) throw new RangeError(faults.error);
  const state = new SimulatorState({
    companies: count("companies", opts.companies, 2, 1),
    plans: count("plans", opts.plans, 50, 0),
    reports: count("reports", opts.reports, 3, 0),
    seed: count("seed", opts.seed, 1, 0),
    tokenTtlSeconds: count("tokenTtlSeconds", opts.tokenTtlSeconds, 3600, 1),
    faults: { ...DEFAULT_FAULTS, ...faults.patch },
    drift: opts.drift ?? false,
    ...(opts.secretTag === undefined ? {} : { secretTag: opts.secretTag }),
    ...(opts.now ? { now: opts.now } : {}),
  });
  // Build the plan bodies now so the first GET /api/plans costs no more than the next one.
  for (const plans of state.plans.values()) plans.body();

  const basePath = normalizeBasePath(opts.basePath ?? DEFAULT_BASE_PATH);
  const host = opts.host ?? "127.0.0.1";
  const server = createServer({ keepAlive: true }, createRequestListener(state, basePath));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 5_000;
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const port = await listen(server, count("port", opts.port, 0, 0), host);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${port}${basePath}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      state.closing.abort();
      server.close((err) => (err ? reject(err) : resolve()));
      // Idle keep-alive sockets would hold close() open for KEEP_ALIVE_MS.
      for (const socket of sockets) socket.destroy();
    });
    return closing;
  };

  return {
    baseUrl,
    tokenUrl: `${baseUrl}/oauth/token`,
    port,
    companies: state.companyInfo(),
    clientSecret: state.clientSecret,
    close,
    state,
  };
}
