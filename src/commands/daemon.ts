/** `tas-sync daemon`: flags in, runDaemon (src/daemon/) until SIGINT/SIGTERM, exit code out. */
import { runDaemon } from "../daemon/index.js";
import type { Command } from "./types.js";

export const daemonCommand: Command = {
  name: "daemon",
  summary: "run the scheduled syncs, the push workers and the HTTP server (BullMQ on Redis)",
  help: `Usage: tas-sync daemon [--no-sync] [--no-push] [--no-server] [--config PATH]

Keeps one BullMQ job scheduler per configured company (sync.every, or the company's own
every) and runs the sync worker (sync.concurrency companies at once; one company never twice
at once, whatever the number of daemons) and the push workers (push.concurrency, with
push.ratePerSecond shared by every daemon on the same Redis). Serves /healthz, /readyz,
/metrics and /queues (Bull Board) on server.host:server.port. Sends an alert to
alerts.webhookUrl when a company's sync starts failing, turns stale, or recovers.

On start it marks runs of dead processes failed and re-queues push rows an interrupted run
left queued. When Redis comes back after an outage (maybe empty) it recreates the schedulers
and re-queues the rows. SIGINT/SIGTERM: no new jobs; running ones get shutdownGraceMs
(default 30 s) to finish, then a running sync is abandoned (it writes nothing); exit 0. A
second signal exits at once.

Options:
  --no-sync        do not schedule or run syncs
  --no-push        do not run push workers
  --no-server      do not serve HTTP (health, readiness, metrics, dashboard)

Exit codes: 0 stopped by a signal; 1 Redis or the database unreachable at start; 2 bad usage
            or config (e.g. a non-loopback server.host without credentials).`,
  options: {
    "no-sync": { type: "boolean" },
    "no-push": { type: "boolean" },
    "no-server": { type: "boolean" },
  },
  run: async (ctx) =>
    runDaemon(ctx.config(), {
      logger: ctx.logger,
      stop: ctx.stopSignal,
      roles: { sync: !ctx.flags["no-sync"], push: !ctx.flags["no-push"], server: !ctx.flags["no-server"] },
    }),
};
