/** Commands of the pull side: sync, migrate, query. */
import { databaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import { QueryReadOnlyError } from "../store/port.js";
import { runSyncCommand } from "./sync.js";
import { formatTable } from "./table.js";
import { type Command, intFlag, UsageError } from "./types.js";

export const syncCommand: Command = {
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
  run: async (ctx) =>
    runSyncCommand(ctx.config(), {
      companyId: intFlag(ctx.flags, "company"),
      logger: ctx.logger,
      out: ctx.out,
      signal: ctx.stopSignal,
    }),
};

export const migrateCommand: Command = {
  name: "migrate",
  summary: "create or upgrade the database schema",
  help: `Usage: tas-sync migrate [--db PATH|URL] [--config PATH]

Applies the committed migrations to the database (SQLite file or postgres:// URL). Every
other command that opens the database does this too; run it alone to prepare a database
ahead of time. Safe when several processes do it at once.

Options:
  --db PATH|URL       database (default: the config's "database")`,
  options: { db: { type: "string" } },
  run: async (ctx) => {
    const target = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
    const store = await openStore(target);
    try {
      const n = await store.sql.migrationCount();
      ctx.out(`database ${target.display} is up to date (${n} migrations applied)`);
    } finally {
      await store.close();
    }
    return 0;
  },
};

export const queryCommand: Command = {
  name: "query",
  summary: "run a read-only SQL query against the database and print the rows",
  help: `Usage: tas-sync query "SQL" [--db PATH|URL] [--json]

Opens the database read-only and prints the result as a table (or JSON lines with --json).
Example: tas-sync query "SELECT platform, count(*) FROM plans WHERE deleted_at IS NULL GROUP BY 1"

Options:
  --db PATH|URL       database (default: the config's "database")
  --json              one JSON object per row`,
  options: { db: { type: "string" }, json: { type: "boolean" } },
  positionals: 1,
  run: async (ctx) => {
    const sql = ctx.positionals[0];
    if (!sql) throw new UsageError('missing the SQL text, e.g. tas-sync query "SELECT * FROM sync_runs"');
    const target = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
    const store = await openStore(target, { readonly: true });
    try {
      const cursor = await store.sql.query(sql);
      const rows: Record<string, unknown>[] = [];
      for await (const values of cursor.rows)
        rows.push(Object.fromEntries(cursor.columns.map((c, i) => [c, values[i]])));
      if (ctx.flags.json) for (const r of rows) ctx.out(JSON.stringify(r));
      else ctx.out(formatTable(rows));
      return 0;
    } catch (err) {
      if (err instanceof QueryReadOnlyError) throw new UsageError(err.message);
      if (err instanceof UsageError) throw err;
      throw new UsageError(`query failed: ${(err as Error).message}`);
    } finally {
      await store.close();
    }
  },
};
