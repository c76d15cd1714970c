/** Commands of the pull side: sync, migrate (query is in query.ts). */
import { databaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import { cleanUpAfterDeadProcesses } from "../sync/housekeeping.js";
import { runSyncCommand } from "./sync.js";
import { type Command, intFlag } from "./types.js";

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
      await cleanUpAfterDeadProcesses(store, ctx.logger);
      const n = await store.sql.migrationCount();
      ctx.out(`database ${target.display} is up to date (${n} migrations applied)`);
    } finally {
      await store.close();
    }
    return 0;
  },
};
