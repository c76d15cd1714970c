/** Commands of the pull side: sync, migrate (query is in query.ts). */
import { databaseTarget } from "../config/index.js";
import { openStore } from "../store/db.js";
import { runSyncCommand } from "./sync.js";
import { type Command, intFlag } from "./types.js";

export const syncCommand: Command = {
  name: "sync",
  summary: "pull plans and scheduled reports of every configured company once (no Redis)",
  help: `Usage: tas-sync sync [--company ID] [--config PATH]

Fetches all plans (GET /api/plans) and the configured scheduled reports of each company,
validates and normalizes them, and writes them to the SQLite database in one transaction per
company. Migrations are applied first. Prints one summary line per company.

Options:
  --company ID        sync only this configured company

Exit codes: 0 every company succeeded; 1 a company failed; 2 bad usage or config;
            3 a company was only partly synced (e.g. a report answered 403).`,
  options: { company: { type: "string" } },
  run: async (ctx) =>
    runSyncCommand(ctx.config(), {
      companyId: intFlag(ctx.flags, "company"),
      logger: ctx.logger,
      out: ctx.out,
    }),
};

export const migrateCommand: Command = {
  name: "migrate",
  summary: "create or upgrade the SQLite database schema",
  help: `Usage: tas-sync migrate [--db PATH] [--config PATH]

Applies the committed migrations (migrations/) to the database. Every other command that
opens the database does this too; run it alone to prepare a database ahead of time.

Options:
  --db PATH           database file (default: the config's "database")`,
  options: { db: { type: "string" } },
  run: async (ctx) => {
    const target = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
    const store = openStore(target);
    const n = (store.sqlite.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number })
      .n;
    store.close();
    ctx.out(`database ${target.display} is up to date (${n} migrations applied)`);
    return 0;
  },
};
