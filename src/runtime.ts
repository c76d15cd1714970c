/** Builds the API clients from a config: one keep-alive transport shared by every company. */
import { tokenProviderFor } from "./api/auth.js";
import { TasClient } from "./api/client.js";
import { type HttpOptions, HttpTransport } from "./api/http.js";
import { authFor, type CompanyConfig, type Config, notInConfig } from "./config/index.js";
import type { Logger } from "./log.js";
import type { Telemetry } from "./telemetry.js";

export interface Clients {
  http: HttpTransport;
  clientFor(companyId: number): TasClient;
  company(companyId: number): CompanyConfig;
  close(): Promise<void>;
}

/** The transport's waits and clock, injected by tests (default: real timers, Date.now). */
export type TransportClock = Pick<HttpOptions, "sleep" | "now">;

export function createClients(
  cfg: Config,
  logger: Logger,
  telemetry?: Telemetry,
  clock: TransportClock = {},
): Clients {
  // Each create job in flight holds a connection: fewer would queue the push's requests
  // behind each other, whatever push.concurrency says.
  const connections = Math.max(cfg.http.connections, cfg.push.concurrency);
  const http = new HttpTransport({
    ...cfg.http,
    ...clock,
    connections,
    logger,
    ...(telemetry ? { telemetry } : {}),
  });
  const clients = new Map<number, TasClient>();
  const company = (id: number) => {
    const c = cfg.companies.find((x) => x.id === id);
    if (!c) throw new Error(notInConfig(cfg, id));
    return c;
  };
  return {
    http,
    company,
    clientFor(id) {
      let client = clients.get(id);
      if (!client) {
        // Each company keeps its own token: the plan list returns the caller's company.
        const { auth, source } = authFor(cfg, company(id));
        client = new TasClient({
          http,
          baseUrl: cfg.baseUrl,
          auth: tokenProviderFor(auth, http, source),
          companyId: id,
          maxAttempts: cfg.http.maxAttempts,
          maxResponseBytes: cfg.http.maxResponseBytes,
          logger,
          ...(clock.sleep ? { sleep: clock.sleep } : {}),
        });
        clients.set(id, client);
      }
      return client;
    },
    close: () => http.close(),
  };
}
