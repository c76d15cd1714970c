/** The daemon's HTTP server: health, readiness, Prometheus metrics and the Bull Board dashboard. */
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { UserError } from "../errors.js";
import { buildApp } from "./app.js";
import type { RunningServer, ServerOptions } from "./types.js";

export { parseBasic } from "./auth.js";
export { assertServerExposure, ServerExposureError } from "./exposure.js";
export type { HomeCompany, HomeView } from "./home-view.js";
export type { BasicAuth, Readiness, ReadinessCheck, RunningServer, ServerOptions } from "./types.js";

/** The server could not listen (address in use, not this machine's, bad port): the config's to fix. */
export class ServerListenError extends UserError {
  override name = "ServerListenError";
}

/** Listens on host:port and serves until close(); rejects with a one-line ServerListenError. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const where = `${hostForUrl(opts.host)}:${opts.port}`;
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65_535) {
    throw new ServerListenError(`cannot listen on ${where}: the port must be an integer from 0 to 65535`);
  }
  const app = buildApp(opts);
  // overrideGlobalObjects: false keeps the process's global Request/Response untouched.
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new ServerListenError(`cannot listen on ${where}: ${describe(err)}`));
    };
    server.once("error", onError);
    // Node binds "::1", not the "[::1]" a URL (and the config) may spell.
    server.listen(opts.port, opts.host.replace(/^\[(.*)\]$/, "$1"), () => {
      server.off("error", onError);
      resolve();
    });
  });
  server.on("error", (err) => opts.logger.error({ err }, "HTTP server error"));

  const port = (server.address() as AddressInfo).port;
  const url = `http://${hostForUrl(opts.host)}:${port}`;
  opts.logger.info({ url }, "HTTP server listening");
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // close() waits for every open connection; idle keep-alive ones would hold it forever.
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
      return closing;
    },
  };
}

function hostForUrl(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "EADDRINUSE":
      return "the address is already in use (another tas-sync daemon, or set server.port)";
    case "EADDRNOTAVAIL":
      return "the address is not one of this machine's (check server.host)";
    case "EACCES":
      return "permission denied (ports below 1024 need privileges; set server.port)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve (check server.host)";
    default:
      return err.code ?? err.message;
  }
}
