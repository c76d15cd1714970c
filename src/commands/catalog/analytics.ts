/** Specs of the analysts' commands: dbt-sources, export. Help texts only: no implementation here. */
import type { CommandSpec } from "../types.js";

export const dbtSourcesSpec: CommandSpec = {
  name: "dbt-sources",
  summary: "write a dbt sources.yml for the mirror: descriptions, keys tested, freshness per schedule",
  help: `Usage: tas-sync dbt-sources [--out FILE] [--db PATH|URL] [--schema NAME] [--source-name NAME]
                         [--warn-after DURATION] [--error-after DURATION] [--config PATH]

Writes dbt's source properties (version 2) for every table and view of the mirror: each
column with the words of the table reference (docs/reference/tables.md) and its type, the
keys tested (unique and not_null on a single key, not_null on each column of a composite
one, relationships from each child table to its plan or report), a tag per kind of table
(mirror, history, sync, observed_schema, push, view), and freshness:

  sync_runs                loaded_at_field finished_at, runs that succeeded or were partial
  sync_runs_company_<ID>   the same table (identifier sync_runs) for one company, with
                             that company's thresholds
  v_plans                  loaded_at_field last_seen_at (moves with every complete plan list)
  scheduled_reports        loaded_at_field last_seen_at (when some company has reportIds)

A company's thresholds come from its schedule (companies[].every, else sync.every): warn
after two periods, error after sync.staleAfter (default three periods), when tas-sync status
calls it stale; dbt.warnAfter and dbt.errorAfter in the config, or the flags, set them for
every check. The whole-table checks use the most frequent company's. The store decides the
naming: PostgreSQL gets the URL's database and schema public; SQLite (the dbt-sqlite
adapter) gets schema main and no database (attach the file as main in schemas_and_paths).
Needs none of the service's secrets; does not open the database. See docs/analytics.md.

Options:
  --out FILE              write to FILE (e.g. models/staging/tas_sync/sources.yml), not stdout
  --db PATH|URL           the store to describe (default: the config's "database")
  --schema NAME           the schema (PostgreSQL, default public) or the attached name
                            (SQLite, default main)
  --source-name NAME      the name in {{ source('NAME', 'plans') }} (default tas_sync)
  --warn-after DURATION   warn after this long without a load, for every check ("1h", "2d")
  --error-after DURATION  error after this long, for every check

Exit codes: 0 written; 2 bad usage or config (a warn threshold after the error one), a FILE
            that cannot be written.`,
  options: {
    out: { type: "string" },
    db: { type: "string" },
    schema: { type: "string" },
    "source-name": { type: "string" },
    "warn-after": { type: "string" },
    "error-after": { type: "string" },
  },
  secretsWhenUsed: true,
  load: () => import("../dbt-sources.js").then((m) => m.runDbtSources),
};

export const exportSpec: CommandSpec = {
  name: "export",
  summary: "write the mirror's tables, views and history as Parquet files or one DuckDB database",
  help: `Usage: tas-sync export --format parquet|duckdb --out PATH [--tables NAME,...] [--db PATH|URL]

Reads every table and view of the mirror (plans and reports, their child tables, history,
sync runs, the observed schema, the push outbox: docs/reference/tables.md), or the ones
--tables names, from either store, and writes them with real types: ids and other 64-bit
numbers as BIGINT, flags as BOOLEAN, times as TIMESTAMP WITH TIME ZONE (UTC), text as
VARCHAR. A view is written as a table of its rows (v_plan_versions: every version's JSON).

  --format parquet   one file per table or view in the folder PATH: PATH/plans.parquet, ...
                       (zstd); other files in the folder are left alone
  --format duckdb    one DuckDB database file PATH (replaced when it exists)

The database is opened read-only and rows stream in batches: memory stays bounded whatever
the size. A file appears under its name only when complete. Each table is read in its own
read-only transaction: when a sync writes meanwhile, a warning says so. Progress on stderr.
Uses DuckDB's Node package (@duckdb/node-api, an optional dependency: its binary comes from
npm with it, nothing is downloaded when it runs). Needs none of the service's secrets.

Options:
  --format FORMAT     parquet or duckdb
  --out PATH          the folder (parquet) or the file (duckdb)
  --tables NAMES      only these tables and views, separated by commas (plans,plan_versions)
  --db PATH|URL       SQLite file or postgres:// URL (default: the config's "database")

Exit codes: 0 written; 2 bad usage, an unknown table, a missing database or DuckDB package;
            130/143 stopped by SIGINT/SIGTERM (unfinished files removed).`,
  options: {
    format: { type: "string" },
    out: { type: "string" },
    tables: { type: "string" },
    db: { type: "string" },
  },
  secretsWhenUsed: true,
  load: () => import("../export.js").then((m) => m.runExport),
};
