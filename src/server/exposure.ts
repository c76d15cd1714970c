/** Refuses to serve the home page, metrics and the dashboard unauthenticated beyond this machine, unless told to. */
import { type Config, isLoopback } from "../config/index.js";
import { UserError } from "../errors.js";

export class ServerExposureError extends UserError {
  override name = "ServerExposureError";
}

/**
 * Throws when server.host is not loopback and no credentials are set (unless allowUnauthenticated),
 * and always when such a server would also let anyone drive the queues (dashboardWritable).
 */
export function assertServerExposure(server: Config["server"]): void {
  if (isLoopback(server.host)) return;
  if (server.username !== undefined && server.password !== undefined) return;
  if (server.allowUnauthenticated && server.dashboardWritable)
    throw new ServerExposureError(
      `server.dashboardWritable with server.allowUnauthenticated on server.host ${server.host} would let anyone who reaches it retry, promote and remove push jobs: set server.username and server.password, set server.dashboardWritable to false, or set server.host to 127.0.0.1`,
    );
  if (server.allowUnauthenticated) return;
  throw new ServerExposureError(
    `server.host ${server.host} is reachable beyond this machine: set server.username and server.password, or "allowUnauthenticated": true to serve /, /metrics and /queues without them`,
  );
}
