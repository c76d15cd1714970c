/** Specs of the long-running and overview commands: daemon, status, schema, simulate. */
import type { CommandSpec, PassthroughSpec } from "../types.js";

export const daemonSpec: CommandSpec = {
  name: "daemon",
  summary: "run the scheduled syncs, the push workers and the HTTP server (BullMQ on Redis)",
  help: `Usage: tas-sync daemon [--no-sync] [--no-push] [--no-server] [--config PATH]

Keeps one BullMQ job scheduler per configured company (sync.every, or the company's own
every) and runs the sync worker (sync.concurrency companies at once; one company never twice
at once, whatever the number of daemons) and the push workers (push.concurrency, with
push.ratePerSecond shared by every daemon on the same Redis). Serves /healthz, /readyz,
/metrics and /queues (Bull Board) on server.host:server.port. Sends an alert to
alerts.webhookUrl when a company's sync starts failing, turns stale, or recovers, and when a
sync finds the service's schema changed (tas-sync schema --changes).

On start it marks runs of dead processes failed and re-queues push rows an interrupted run
left queued. When Redis comes back after an outage (maybe empty) it recreates the schedulers
and re-queues the rows. SIGINT/SIGTERM: no new jobs; running ones get shutdownGraceMs
(default 30 s) to finish, then a running sync is abandoned (it writes nothing); Redis, the
database and the server are closed; exit 0. A second signal exits at once (130/143).

Options:
  --no-sync        do not schedule or run syncs
  --no-push        do not run push workers
  --no-server      do not serve HTTP (health, readiness, metrics, dashboard)

Exit codes: 0 stopped gracefully by SIGINT/SIGTERM; 130/143 stopped at once by a second
            signal; 1 Redis unreachable at start; 2 bad usage or config (e.g. a non-loopback
            server.host without credentials), a database that cannot be opened or reached,
            or a server address that cannot be listened on.`,
  options: {
    "no-sync": { type: "boolean" },
    "no-push": { type: "boolean" },
    "no-server": { type: "boolean" },
  },
  load: () => import("../daemon.js").then((m) => m.runDaemonCommand),
  signalEndsNormally: true,
  logsAsService: true,
};

export const statusSpec: CommandSpec = {
  name: "status",
  summary: "show each company's freshness, the queues and the push outbox (exit 3 if unhealthy)",
  help: `Usage: tas-sync status [--json] [--config PATH]

Per company: the last sync run (time, status, counts), the last success (a run that ended
succeeded or partial), the next scheduled run (when Redis answers), and whether it is stale
(no success for sync.staleAfter, by default three schedule periods) or failing (its last run
failed). Needs none of the service's secrets (env: variables of auth may be unset). Then the sync and push queues' jobs
by state (and whether the push queue is paused; finished push jobs are not kept, the outbox
counts them), and the push outbox's rows by status with failure reasons. A company with schema
changes not acknowledged yet gets a line with their count (tas-sync schema --changes).

Options:
  --json           the same as one JSON document (snake_case keys)

Exit codes: 0 every company fresh and not failing; 3 some company stale or failing;
            2 bad usage or config.`,
  options: { json: { type: "boolean" } },
  secretsWhenUsed: true,
  load: () => import("../status.js").then((m) => m.runStatus),
};

export const schemaSpec: CommandSpec = {
  name: "schema",
  summary: "show the service's schema as observed (paths, types, values), its changes; acknowledge them",
  help: `Usage: tas-sync schema [--company ID] [--json]
       tas-sync schema --changes [--since DATE|RUN] [--company ID] [--json]
       tas-sync schema --markdown [FILE] [--company ID]
       tas-sync schema --ack ID|all [--company ID]

Every sync observes the JSON of the plans and scheduled reports it stores (new or changed
ones; unchanged ones cost nothing) and records what differs from what was known. This prints,
per company and entity (plan, period, environment, resolutions, plan_alert, fetch_app_file,
mobile_app, mobile_app_metadata:<OS>, scheduled_report, report_alert), each JSON path with
its types and their counts, how many records carry it (and their share), its string values
with counts ("(more than N)" past schema.valueCap) and the smallest and largest number.
Needs none of the service's secrets (env: variables of auth may be unset). See docs/schema.md.

Options:
  --company ID        only this company
  --json              one JSON array, an object per path: company_id, entity, path, types
                        ({"string": 3}), present, entity_count, share, values ([{value,
                        count}], or null when capped), min, max, first/last run and time
  --changes           the change log instead, oldest first: added, removed, type_changed,
                        new_value, value_gone, with the run that found each, before and
                        after, an example record id, and whether it was acknowledged
  --since DATE|RUN    with --changes: found at or after DATE (2025-03-01, or an ISO 8601
                        time with its zone), or by run RUN and the runs after it
  --markdown          "the API as observed" as markdown, to FILE or stdout: the contract's
                        "not shown" gaps answered with what was seen, then a section per entity
  --ack ID|all        acknowledge change ID, or every open change (of --company when given):
                        status stops counting it; the freeze contract accepts what it allows

Exit codes: 0 done; 2 bad usage or config, an unknown change id, a --since that is neither a
            date nor a run id, a FILE that cannot be written.`,
  options: {
    company: { type: "string" },
    json: { type: "boolean" },
    changes: { type: "boolean" },
    since: { type: "string" },
    markdown: { type: "boolean" },
    ack: { type: "string" },
  },
  positionals: 1,
  secretsWhenUsed: true,
  load: () => import("../schema.js").then((m) => m.runSchema),
};

/** The simulator parses its own flags and prints its own help (src/simulator/command.ts). */
export const simulateSpec: PassthroughSpec = {
  name: "simulate",
  summary: "run the bundled simulator of the Test Automation Service",
  passthrough: () => import("../../simulator/command.js").then((m) => m.runSimulateCommand),
};
