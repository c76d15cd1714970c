/** Refuses to serve the home page, metrics and the dashboard unauthenticated beyond this machine, unless told to. */
import { type Config, isLoopback } from "../config/index.js";
import { UserError } from "../errors.js";

export class ServerExposureError extends UserError {
  override name = "ServerExposureError";
}

/** Throws when server.host is not loopback and no credentials are set (unless allowUnauthenticated). */
export function assertServerExposure(server: Config["server"]): void {
  if (isLoopback(server.host) || server.allowUnauthenticated) return;
  if (server.username !== undefined && server.password !== undefined) return;
  throw new ServerExposureError(
    `server.host ${server.host} is reachable beyond this machine: set server.username and server.password, or "allowUnauthenticated": true to serve /, /metrics and /queues without them`,
  );
}
