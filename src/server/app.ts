/** The routes of the daemon's HTTP server, as a Hono app (no socket: startServer listens). */
import { Hono } from "hono";
import { basicAuth } from "./auth.js";
import { DASHBOARD_PATH, dashboard } from "./dashboard.js";
import { healthz, readyz } from "./health.js";
import { homeRoute } from "./home.js";
import { hostCheck, servedHosts } from "./host-check.js";
import { metricsRoute } from "./metrics-route.js";
import type { ServerOptions } from "./types.js";

const READINESS_TIMEOUT_MS = 2000;

export function buildApp(opts: ServerOptions): Hono {
  const app = new Hono();
  app.get("/healthz", healthz);
  // Without credentials, only a Host this server answers to (after /healthz, which shows nothing).
  if (!opts.auth) app.use("*", hostCheck(servedHosts(opts.host, opts.allowedHosts ?? [])));
  app.get("/readyz", readyz(opts.readiness, opts.readinessTimeoutMs ?? READINESS_TIMEOUT_MS));

  if (opts.auth) {
    const auth = basicAuth(opts.auth);
    app.use("/", auth);
    app.use("/metrics", auth);
    app.use(DASHBOARD_PATH, auth);
    app.use(`${DASHBOARD_PATH}/*`, auth);
  }
  if (opts.home) app.get("/", homeRoute(opts.home, opts.readinessTimeoutMs ?? READINESS_TIMEOUT_MS));
  app.get("/metrics", metricsRoute(opts.metrics.registry));
  app.route(DASHBOARD_PATH, dashboard(opts.queues, opts.dashboardWritable));

  app.onError((err, c) => {
    opts.logger.error({ err, method: c.req.method, path: c.req.path }, "HTTP request failed");
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}
