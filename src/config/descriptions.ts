/**
 * What each config key means, for the configuration reference (docs/reference/configuration.md,
 * written by `npm run docs`). Key paths and defaults come from the zod schema itself
 * (./keys.ts); this map adds the words, and a type or default where zod's own would mislead (a
 * duration is a string to zod, a default it stores in ms). A unit test fails when a key of the
 * schema has no entry here, or an entry names no key.
 */
export interface KeyDoc {
  /** Shown instead of the type zod checks (`duration`, `secret`, `URL`). */
  type?: string;
  /** Shown instead of zod's default (or where the default is computed elsewhere). */
  default?: string;
  description: string;
}

/** Keys documented by their parent's entry instead (a company's auth has the shapes of `auth`). */
export const DOCUMENTED_BY_PARENT = ["companies[].auth."];

const SECRET = "secret (`env:NAME` allowed)";

export const CONFIG_KEY_DOCS: Record<string, KeyDoc> = {
  $schema: { description: "Ignored; allowed so that editors can point at a JSON schema." },
  baseUrl: {
    type: "URL",
    default: "**required**",
    description:
      "The service's REST root, **including its path**, e.g. `https://host/Testinium.RestApi`. Every operation path is appended to it (`{baseUrl}/api/plans`).",
  },
  allowInsecureHttp: {
    description:
      "`http://` is accepted only for loopback hosts (`localhost`, `127.x.x.x`, `[::1]`), because the bearer token would travel in clear text. `true` allows `http://` to any host.",
  },
  auth: {
    description:
      "Default credentials of every company without its own `auth`; required unless every company has one. One of two shapes: a static token (`token`), or the OAuth2 password grant (`tokenUrl`, `clientId`, `clientSecret`, `username`, `password`, `scope`).",
  },
  "auth.token": {
    type: SECRET,
    description: "Shape 1, **static bearer token**: sent as is and never renewed; a 401 is final.",
  },
  "auth.tokenUrl": {
    type: "URL",
    description:
      "Shape 2, **OAuth2 password grant**: the token endpoint. `{baseUrl}/oauth/token` on the self-hosted edition; on a separate account host in the cloud edition.",
  },
  "auth.clientId": { type: SECRET, description: "OAuth2 client id, sent as HTTP Basic auth to `tokenUrl`." },
  "auth.clientSecret": { type: SECRET, description: "OAuth2 client secret, sent with the client id." },
  "auth.username": {
    type: SECRET,
    description: "The user's login (`grant_type=password`); named in errors.",
  },
  "auth.password": { type: SECRET, description: "The user's password." },
  "auth.scope": { description: "Optional `scope` form field of the token request." },
  companies: {
    default: "**required**, at least one",
    description: "The companies to sync and push for. Ids must be unique.",
  },
  "companies[]": { description: "One company." },
  "companies[].id": {
    default: "**required**",
    description:
      "Company id: the `current-company-id` header, the `companyId` query parameter, and the `company_id` of seed rows.",
  },
  "companies[].reportIds": {
    description:
      "Scheduled report ids to fetch on every sync. The service cannot list reports, so they must be named.",
  },
  "companies[].auth": {
    default: "the top-level `auth`",
    description:
      "This company's own credentials, in either shape of `auth`. It **replaces** the top-level block as a whole (fields are not merged). Needed when companies log in as different users: the plan list returns the plans of the user's company.",
  },
  "companies[].every": {
    type: "duration",
    default: "`sync.every`",
    description: "This company's sync schedule in the daemon.",
  },
  database: {
    type: "path or `postgres://` URL (`env:NAME` allowed)",
    default: '`"./tas.db"`',
    description:
      "Where the mirror and the push outbox live: a SQLite file path (relative to the working directory), or a `postgres://` / `postgresql://` URL. Created (SQLite) and migrated on first use. Write a URL that holds a password as `env:NAME` (`--db env:NAME` too): the value then stays out of the file and the process list. The environment variable `TAS_DATABASE` overrides it, and `--db` overrides both.",
  },
  redisUrl: {
    type: "`redis://` or `rediss://` URL (`env:NAME` allowed)",
    description:
      "Redis for BullMQ (the daemon, `push`) and the shared push rate limit. The environment variable `REDIS_URL` overrides it.",
  },
  queuePrefix: {
    description:
      "Prefix of every BullMQ key, so that several deployments can share one Redis; also names the rate-limit key `<prefix>:push:rate`.",
  },
  http: { description: "How requests to the service are sent." },
  "http.timeoutMs": {
    description: "Connect, response-headers and body-inactivity timeout of each request, in ms.",
  },
  "http.maxAttempts": {
    description:
      "Attempts of an idempotent request (plan list, report, token) on a 5xx, timeout or broken connection, with exponential backoff (250 ms doubling, capped at 15 s, jittered). Each operation has its own budget: a token request's retries are not repeated for every attempt of the request that needed it. A service that cannot be reached (connection refused, unknown host, no route, TLS handshake failed) is not retried: the call fails at once, naming host:port and the key to check (`baseUrl` or `auth.tokenUrl`). A create is retried here only when a connection timed out before it was made; see `push.maxAttempts`.",
  },
  "http.maxRequestsPerSecond": {
    description:
      "Cap on requests per second to each host, per process (sync, token and create), evenly spaced.",
  },
  "http.connections": {
    description:
      "Keep-alive connections per origin (at least `push.concurrency`: each create in flight holds one).",
  },
  "http.maxResponseBytes": {
    default: "`1073741824` (1 GiB)",
    description:
      "Largest plan-list body read; past it the read stops with `RESPONSE_TOO_LARGE`. The list is spooled to disk as it arrives, so memory does not grow with it.",
  },
  sync: { description: "The pull side." },
  "sync.every": {
    type: "duration",
    default: '`"15m"`',
    description: "Daemon: how often each company is synced (a company's own `every` overrides it).",
  },
  "sync.everyMinutes": {
    description: "The old name of `sync.every`, in minutes. Give one or the other, not both.",
  },
  "sync.concurrency": { description: "Companies synced at once, by `tas-sync sync` and by each daemon." },
  "sync.staleAfter": {
    type: "duration",
    default: "3 × the company's schedule",
    description:
      "A company whose last succeeded or partial sync started longer ago than this is **stale**: `status` exits 3, `/metrics` sets `tas_sync_company_stale`, and an alert is sent.",
  },
  "sync.lease": {
    type: "duration, at least 2 s",
    default: '`"60s"`',
    description:
      "How long a sync's claim on its company lasts without renewal (renewed every sixth of it). An expired claim lets another process take over; its run is marked failed after 3 × this without a heartbeat.",
  },
  "sync.readAheadMiB": {
    description:
      "MiB of new or changed plans read (parsed, checked, normalized) on the main thread once the list is in, before the write transaction opens: a sync that finds a few changes starts no thread. Past it, every new or changed plan goes to a temporary file and a worker thread reads them as they arrive, on another core, while the list downloads and then while the transaction writes what it read; unchanged plans are never parsed. Memory grows with it (about 5 × this in rows).",
  },
  schema: {
    description:
      "The service as observed: paths, types and values of the records, and their changes (`tas-sync schema`).",
  },
  "schema.observe": {
    description:
      "Observe each new or changed record (unchanged ones cost nothing) into `schema_paths`, `schema_values` and `schema_changes`. `false`: no observation and no drift alerts.",
  },
  "schema.valueCap": {
    description:
      "Distinct strings listed per path in `schema_values`; a path with more has its values dropped and `values_capped` set (free text like names). Memory is bounded by it.",
  },
  "schema.contract": {
    description: "What a sync does with a record outside the accepted schema, per kind of record.",
  },
  "schema.contract.plan": {
    type: '`"evolve"`, `"freeze"` or `"discard_value"`',
    description:
      "`evolve`: store it and record the change in `schema_changes`. `freeze`: refuse it into `rejected_records`, naming the path and the value; its last accepted version stays current. `discard_value`: store it without the paths outside the accepted schema in the JSON kept in columns (`plan_alerts.json`, `plan_fetch_app_files.json`, `mobile_apps.metadata_json`); `raw_json` keeps everything. The accepted schema: the documented fields, what was observed before a change, and the changes acknowledged (`tas-sync schema --ack`). Switching loses nothing: `tas-sync replay` applies the contract to the stored records again.",
  },
  "schema.contract.scheduled_report": {
    type: '`"evolve"`, `"freeze"` or `"discard_value"`',
    description: "The same for scheduled reports.",
  },
  query: { description: "Bounds of `tas-sync query` (see [Security](../security.md#query))." },
  "query.timeout": {
    type: 'duration, at least 1 s, or `"0"` for none',
    default: '`"1m"`',
    description:
      "How long a query may run, from its start until its last row is read; past it the query is stopped (on PostgreSQL also the server's `statement_timeout`) and `query` exits 2. `--timeout` overrides it; with `--db` the config file is not read, so only `--timeout` applies.",
  },
  "query.maxRows": {
    description:
      "Rows printed at most by `query`'s table output (`--format table`, the default); a last line says when more were cut and the query stops there. `0`: no cap. csv, json and ndjson are never cut. `--max-rows` overrides it.",
  },
  retention: {
    description:
      'How long bookkeeping is kept: a duration (`"90d"`, at least `"1h"`) or `"never"` (kept for ever). The daemon prunes once a day, in small batches; `tas-sync prune` does the same on demand. Plan and report history (`plan_versions`, `report_versions`) is never pruned. See [Retention](../operations.md#retention).',
  },
  "retention.runs": {
    type: 'duration or `"never"`',
    default: '`"90d"`',
    description:
      "Run records (`sync_runs`) started longer ago than this go with their errors (`sync_errors`). A run stays whatever its age while something points at it: each company's newest run and newest success, the run of the snapshot applied (`sync_state.applied_run_id`), a run that is still running, a run that changed records (the plan and report versions it wrote name it), a run that rejected records which stay (their `last_run_id`), and a run the observed schema names. Its errors go all the same.",
  },
  "retention.rejected": {
    type: 'duration or `"never"`',
    default: '`"90d"`',
    description:
      "Rejected records (`rejected_records`, one row per distinct content) last seen longer ago than this; what a kept run rejected (what is rejected now) stays.",
  },
  "retention.pushes": {
    type: 'duration or `"never"`',
    default: '`"never"`',
    description:
      "Settled push rows (`scenario_requests` created, exists or failed) not changed for this long, and `seed_rejections` recorded that long ago; a row that an unsettled or newer row names as its parent stays. Kept for ever by default: a row is what makes pushing the same seed file again a no-op, and a pruned row pushed again is sent again (the service refuses the name, so it ends `failed`, not duplicated). `scenarios` is never pruned.",
  },
  "retention.schemaChanges": {
    type: 'duration or `"never"`',
    default: '`"never"`',
    description:
      "Acknowledged schema changes (`schema_changes`) detected longer ago than this; open ones stay. `schema_paths` and `schema_values` describe the records held now and are not pruned.",
  },
  push: { description: "The push side." },
  "push.ratePerSecond": {
    description:
      "Create requests per second, **shared by every worker and daemon on the same Redis and `queuePrefix`**, evenly spaced. `null`: no shared limit (429s are still waited out, and `http.maxRequestsPerSecond` still caps each process).",
  },
  "push.rateLimitScope": {
    type: '`"company"` or `"host"`',
    description:
      "Who waits after a 429. `company`: only the company whose token got it (a service that limits per token); its jobs wait in the queue, holding no worker. `host`: every company (a service that limits per host). See [Push outcomes](../push.md).",
  },
  "push.uniqueNames": {
    description:
      "The service refuses a second scenario of the same name in a project (as the real one does): a create whose answer was lost is sent again, and the name clash says it exists. `false`: such a row is never sent again; it fails as `OUTCOME_UNKNOWN` for a person to check.",
  },
  "push.reconcileEveryMs": {
    type: "integer ≥ 100",
    description:
      "How often the daemon and `push --wait` give a job again to rows left queued without one, and the daemon sends one held row of each company whose credentials were refused, to find out whether they work again.",
  },
  "push.concurrency": {
    description:
      "Create jobs running at once in one process (daemon or `push --wait`). To reach a rate, allow about rate × response time (200/s at 150 ms needs 30).",
  },
  "push.maxAttempts": {
    description:
      "Attempts per outbox row on transient failures (5xx, timeouts, connection errors, unreadable answers), waiting 1 s, 2 s, 4 s, … between them. After the last, the row fails with the last error's code.",
  },
  "push.lockDurationMs": {
    description:
      "How long a worker's claim on a push job lasts without renewal: a killed worker's jobs run again on a live worker after about this long.",
  },
  server: { description: "The daemon's HTTP server: `/healthz`, `/readyz`, `/metrics`, `/queues`." },
  "server.host": {
    description:
      "Address to listen on. A non-loopback address needs `server.username` and `server.password`, or `server.allowUnauthenticated`.",
  },
  "server.port": { description: "Port (0: any free port)." },
  "server.username": {
    description: "HTTP Basic user for `/` (the home page), `/metrics` and `/queues`. Give both or neither.",
  },
  "server.password": { type: SECRET, description: "HTTP Basic password for `/`, `/metrics` and `/queues`." },
  "server.dashboardWritable": {
    description:
      "Let the Bull Board page at `/queues` retry, promote, clean and remove jobs (read-only otherwise).",
  },
  "server.allowUnauthenticated": {
    description:
      "Serve `/`, `/metrics` and `/queues` without credentials on a non-loopback `server.host`. Never together with `server.dashboardWritable`: the daemon refuses to start (exit 2) rather than let anyone who reaches it drive the push queue.",
  },
  "server.allowedHosts": {
    description:
      'Without `server.username`/`server.password`, the server answers only requests whose `Host` is the bound address, `localhost`, a loopback address (on `0.0.0.0` or `::`: any of this machine\'s addresses) or one of these names (`["tas.internal"]`); any other gets 421 (DNS-rebinding defence: a web page whose name resolves to this machine cannot read or drive it). `/healthz` is always answered. Names only: no scheme, port or path.',
  },
  alerts: { description: "Where the daemon says that a company's sync changed health." },
  "alerts.webhookUrl": {
    type: "`http(s)://` URL, secret (`env:NAME` allowed)",
    description:
      "Where the daemon POSTs an alert when a company starts failing, turns stale or recovers. Without it the changes are only logged. A user and password in the URL (`https://user:pass@host/…`, percent-encoded) are sent as a Basic `Authorization` header, never in the URL; logs show only the URL's origin (`https://host`). Keep a URL that holds a credential or a token in `env:NAME`.",
  },
  "alerts.allowInsecureHttp": {
    description:
      "`http://` is accepted for the webhook only to loopback hosts (`localhost`, `127.x.x.x`, `[::1]`), as for `baseUrl`: the alerts and any credentials of the URL would travel in clear text. `true` allows `http://` to any host.",
  },
  "alerts.timeoutMs": { description: "Timeout of one webhook request, in ms." },
  dbt: { description: "The freshness checks of `tas-sync dbt-sources` (docs/analytics.md)." },
  "dbt.warnAfter": {
    type: "duration, at least 1 min",
    default: "2 × the company's schedule (at most the error threshold)",
    description:
      "`warn_after` of every freshness check that `tas-sync dbt-sources` writes, instead of the one derived from each company's schedule. `--warn-after` wins over it.",
  },
  "dbt.errorAfter": {
    type: "duration, at least 1 min",
    default: "`sync.staleAfter` (3 × the company's schedule)",
    description:
      "`error_after` of every freshness check that `tas-sync dbt-sources` writes, instead of the company's stale time. `--error-after` wins over it.",
  },
  shutdownGraceMs: {
    description:
      "How long a stopping daemon lets running jobs finish before it abandons a running sync, in ms.",
  },
  logLevel: { description: "Log level when neither `--log-level` nor `TAS_LOG_LEVEL` is given." },
};
