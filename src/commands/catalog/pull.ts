/** Specs of the pull side: sync, migrate, query, demo. Help texts only: no implementation here. */
import { DEFAULT_MAX_CELL_WIDTH } from "../format/defaults.js";
import type { CommandSpec } from "../types.js";

export const syncSpec: CommandSpec = {
  name: "sync",
  summary: "pull plans and scheduled reports of every configured company once (no Redis)",
  help: `Usage: tas-sync sync [--company ID] [--config PATH]

Fetches all plans (GET /api/plans) and the configured scheduled reports of each company,
validates and normalizes them, and writes them to the database in one transaction per
company. Companies are synced side by side, sync.concurrency at a time (default 4).
Migrations are applied first. Prints one summary line per company; progress goes to stderr.

A company that another process is syncing right now is skipped (and says so). A run whose
snapshot is older than one applied meanwhile is discarded (superseded).

Options:
  --company ID        sync only this configured company

Exit codes: 0 every company succeeded (or was skipped); 1 a company failed; 2 bad usage or
            config; 3 a company was only partly synced (e.g. a report answered 403, or
            deletions were held back); 130/143 stopped by SIGINT/SIGTERM.`,
  options: { company: { type: "string" } },
  load: () => import("../sync.js").then((m) => m.runSync),
};

export const replaySpec: CommandSpec = {
  name: "replay",
  summary: "make the stored plans and reports into rows again, without calling the service",
  help: `Usage: tas-sync replay [--company ID] [--config PATH]

Reads the JSON text the mirror keeps of every live plan and report of each configured company,
and writes their rows and child rows again with this version's reader and the config's
schema contract: after an upgrade that adds columns, or after a contract change (a
discard_value contract then strips the JSON the columns keep). The records the company's
newest sync rejected are read again too, and admitted when they read now (after switching
from freeze to evolve, say): they get a new version.

It calls no service and needs none of its secrets. It is idempotent: a stored record keeps its
version and its sightings. One transaction per company, under the company's lease (a company
being synced is skipped), recorded as a run with trigger "replay" (which does not count as a
sync for freshness). Prints one summary line per company: unchanged = records rewritten,
inserted/updated = records admitted, rejected = records that still do not read.

Options:
  --company ID        replay only this configured company

Exit codes: 0 every company replayed; 1 a company failed; 2 bad usage or config; 3 a stored
            record no longer reads (its rows were left as they are).`,
  options: { company: { type: "string" } },
  secretsWhenUsed: true,
  load: () => import("../replay.js").then((m) => m.runReplay),
};

export const migrateSpec: CommandSpec = {
  name: "migrate",
  summary: "create or upgrade the database schema",
  help: `Usage: tas-sync migrate [--db PATH|URL] [--config PATH]

Applies the committed migrations to the database (SQLite file or postgres:// URL). Every
other command that opens the database does this too; run it alone to prepare a database
ahead of time. Safe when several processes do it at once.

Options:
  --db PATH|URL       database (default: the config's "database"); env:NAME reads it from the
                        environment variable NAME, so a password stays out of the process list`,
  options: { db: { type: "string" } },
  load: () => import("../migrate.js").then((m) => m.runMigrate),
};

export const querySpec: CommandSpec = {
  name: "query",
  summary: "run a read-only SQL query against the database and print the rows",
  help: `Usage: tas-sync query "SQL" [--format table|csv|json|ndjson] [--db PATH|URL] [--timeout DURATION]
                        [--max-rows N] [--max-width N] [--raw-csv]

Prints the rows of one statement that reads. Nothing runs before it is checked:
  SQLite: the compiled statement must read (SELECT, WITH, VALUES, EXPLAIN, PRAGMA name), on
    a read-only connection, in a process of its own that a stop or the timeout kills at once.
  PostgreSQL: PostgreSQL's own parser reads the text first: exactly one SELECT (no INTO, no
    FOR UPDATE/SHARE), WITH without INSERT/UPDATE/DELETE/MERGE, VALUES, TABLE, EXPLAIN without
    ANALYZE or SHOW; COPY, DO, CALL, SET and the rest are refused unsent. It then runs in a
    READ ONLY transaction with a statement timeout. A superuser role, or one that may write
    the mirror's tables, draws a warning: use a reader role (tas-sync grant-reader).
Needs none of the service's secrets. Rows are streamed: a result of millions of rows prints
in bounded memory.
Example: tas-sync query "SELECT platform, count(*) FROM plans WHERE deleted_at IS NULL GROUP BY 1"

Options:
  --db PATH|URL       SQLite file or postgres:// URL (default: the config's "database"; the
                        config file is then not read); env:NAME reads it from the environment
                        variable NAME, so a password stays out of the process list
  --format FORMAT     table (default): aligned columns for people; NULL shows as NULL, control
                        characters as escapes (\\x1b, \\n, \\t); long cells end in "…"; the
                        widths come from the first 1000 rows
                      csv: RFC 4180 with a header row; NULL is an empty field, '' is ""; a text
                        cell that starts with = + - @ tab or CR gets a leading ' (a spreadsheet
                        would run it as a formula); numbers such as -5 are left as they are
                      json: one JSON array of row objects; NULL is null
                      ndjson: one JSON object per line
  --json              the same as --format ndjson
  --timeout DURATION  stop the query when it runs longer (from its start until its last row
                        is read), e.g. 30s, 5m; 0 for none (default: query.timeout, 1m)
  --max-rows N        table output: print at most N rows, then say that more were cut and stop
                        the query; 0 for all (default: query.maxRows, 1000)
  --max-width N       widest table cell, in terminal columns (default ${DEFAULT_MAX_CELL_WIDTH})
  --raw-csv           csv: write every cell exactly as stored, formulas included (for a
                        program that reads the CSV, never for a spreadsheet)

csv (without the formula guard), json and ndjson carry the values exactly; 64-bit integers are
exact; a blob is X'..'. A statement that writes (INSERT, UPDATE, DELETE, CREATE, DROP...) is
refused. See docs/security.md.

Exit codes: 0 done (also when the reader of the output went away, as with | head);
            2 bad SQL, a statement that writes, the timeout, a missing database or bad usage;
            130/143 stopped by SIGINT (Ctrl-C)/SIGTERM.`,
  options: {
    db: { type: "string" },
    json: { type: "boolean" },
    format: { type: "string" },
    timeout: { type: "string" },
    "max-rows": { type: "string" },
    "max-width": { type: "string" },
    "raw-csv": { type: "boolean" },
  },
  positionals: 1,
  secretsWhenUsed: true,
  load: () => import("../query.js").then((m) => m.runQueryCommand),
};

export const grantReaderSpec: CommandSpec = {
  name: "grant-reader",
  summary:
    "create or update a PostgreSQL login role that can only read the mirror (for query, psql, BI tools)",
  help: `Usage: tas-sync grant-reader ROLE [--password env:NAME] [--db URL]

Creates the PostgreSQL login role ROLE, or brings an existing one back to this: it may SELECT
every table and view in the mirror's schema and nothing else. No superuser, no CREATEDB or
CREATEROLE, no membership in any role (pg_read_server_files, pg_signal_backend, ... revoked),
no write privilege, no CREATE on the schema or the database, default_transaction_read_only
on. Default privileges make tables that later migrations add readable too. The server enforces
all of it, whatever SQL the role sends: use it for tas-sync query, psql and BI tools
(Metabase, Grafana). Run it as the role that migrates the mirror (or a superuser). Running it
again is safe. What PUBLIC still grants beyond reading is printed as a warning with its fix.
Example: METABASE_PASSWORD=... tas-sync grant-reader metabase --password env:METABASE_PASSWORD

Options:
  --password env:NAME the role's password, from the environment variable NAME (never on the
                        command line); it is sent as a SCRAM-SHA-256 verifier, so the password
                        itself reaches neither the server's log nor the statement. Without it a
                        new role has no password and an existing one keeps its own
  --db URL            postgres:// URL of the mirror (default: the config's "database")

Exit codes: 0 done; 2 a SQLite database, a bad role name, a role that is a superuser, owns the
            mirror's tables or is the connecting role, or bad usage.`,
  options: { db: { type: "string" }, password: { type: "string" } },
  positionals: 1,
  secretsWhenUsed: true,
  load: () => import("../grant-reader.js").then((m) => m.runGrantReader),
};

export const demoSpec: CommandSpec = {
  name: "demo",
  summary: "start the simulator, sync it into a demo database, and show example queries",
  help: `Usage: tas-sync demo [--db PATH] [--plans N] [--companies N]

Starts the bundled simulator on a free local port, syncs every simulated company into the
database (default ./tas-demo.db), prints the sync summary and the answers to a few example
SQL queries, then stops. Needs no account, no config file and no Redis.

Options:
  --db PATH           database file (default ./tas-demo.db)
  --plans N           plans per simulated company (default 200)
  --companies N       simulated companies (default 2)`,
  options: { db: { type: "string" }, plans: { type: "string" }, companies: { type: "string" } },
  load: () => import("../demo.js").then((m) => m.runDemo),
};

export const pruneSpec: CommandSpec = {
  name: "prune",
  summary: "remove run records, errors and other bookkeeping older than the config's retention",
  help: `Usage: tas-sync prune [--dry-run] [--json] [--config PATH]

Removes what the config's retention no longer keeps, as the daemon does once a day: run
records (sync_runs) and their errors older than retention.runs (default 90d), rejected
records of runs older than retention.rejected (default 90d), and, only when configured,
settled push rows (retention.pushes) and acknowledged schema changes
(retention.schemaChanges). A run stays whatever its age while something points at it: each
company's newest run and newest success, the run of the snapshot applied, a run still
running, a run that changed records (its versions name it), a run whose rejected records stay.
Plan and report history (versions) is never pruned.

Works in small batches (each one short transaction, a pause between them), so syncs and
daemons using the database meanwhile wait at most one batch. Needs none of the service's
secrets. Prints the rows removed per table, and a summary line on stderr.

Options:
  --dry-run        count what would be removed; remove nothing
  --json           the same as one JSON document

Exit codes: 0 done (also when nothing was old enough); 2 bad usage or config, or a
            database that cannot be opened; 130/143 stopped by SIGINT/SIGTERM (what was
            removed stays removed).`,
  options: { "dry-run": { type: "boolean" }, json: { type: "boolean" } },
  secretsWhenUsed: true,
  load: () => import("../prune.js").then((m) => m.runPrune),
};
