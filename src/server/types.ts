/** What the daemon's HTTP server is given and what it gives back. */
import type { Queue } from "bullmq";
import type { Registry } from "prom-client";
import type { Logger } from "../log.js";
import type { Secret } from "../secret.js";
import type { HomeView } from "./home-view.js";

/** One dependency's state, as /readyz reports it. */
export interface ReadinessCheck {
  ok: boolean;
  detail?: string;
}

/** The daemon's readiness: ok when every check is; /readyz answers it as JSON. */
export interface Readiness {
  ok: boolean;
  checks: Record<string, ReadinessCheck>;
  companies?: unknown[];
}

export interface BasicAuth {
  username: string;
  password: Secret;
}

export interface ServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** When set, /, /metrics and /queues require these credentials; /healthz and /readyz never do. */
  auth?: BasicAuth;
  /** Without `auth`: Host names served besides the bound address and localhost (DNS-rebinding defence). */
  allowedHosts?: readonly string[];
  metrics: { registry: Registry };
  readiness: () => Promise<Readiness>;
  /** How long /readyz waits for readiness() before answering 503; 2000 by default. */
  readinessTimeoutMs?: number;
  /** What the home page at / shows; without it, / is not served. */
  home?: () => Promise<HomeView>;
  /** The queues Bull Board shows at /queues. */
  queues: Queue[];
  /** Bull Board lets its users retry, promote, pause and remove jobs only when true. */
  dashboardWritable: boolean;
  logger: Logger;
}

export interface RunningServer {
  /** http://host:port, with the port actually bound. */
  url: string;
  port: number;
  /** Stops listening and ends open connections (keep-alive ones too). */
  close(): Promise<void>;
}
