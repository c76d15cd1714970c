/** `tas-sync grant-reader ROLE`: a PostgreSQL login role that can only read the mirror (spec in catalog/pull.ts). */
import { databaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import type { PostgresStore } from "../store/postgres/index.js";
import { grantReader } from "../store/postgres/reader-role.js";
import { scramVerifier } from "../store/postgres/scram.js";
import { type CommandRun, type Flags, UsageError } from "./types.js";

export const runGrantReader: CommandRun = async (ctx) => {
  const role = ctx.positionals[0];
  if (!role)
    throw new UsageError(
      "missing the role name, e.g. tas-sync grant-reader metabase --password env:METABASE_PASSWORD",
    );
  const password = passwordFlag(ctx.flags);
  const target = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
  if (target.dialect !== "postgres")
    throw new UsageError(
      `grant-reader makes a PostgreSQL role; ${target.display} is a SQLite file (who may read it is the file's permissions)`,
    );
  const store = (await openStore(target)) as PostgresStore;
  try {
    const r = await grantReader(store.pool, {
      role,
      ...(password !== undefined ? { passwordVerifier: scramVerifier(password) } : {}),
    });
    const pw =
      password !== undefined
        ? `password set from ${ctx.flags.password as string}`
        : r.created
          ? "no password (set one with --password env:NAME)"
          : "password unchanged";
    ctx.out(
      `reader role "${role}" ${r.created ? "created" : "updated"}: may log in and SELECT ${r.relations} tables and views in schema ${r.schema} of database ${r.database}, nothing else; ${pw}`,
    );
    if (r.defaultsFor.length > 0)
      ctx.out(
        `tables that later migrations add are readable too (default privileges of ${r.defaultsFor.map((o) => `"${o}"`).join(", ")})`,
      );
    if (r.revoked.length > 0) ctx.out(`memberships revoked: ${r.revoked.join(", ")}`);
    for (const w of r.warnings) process.stderr.write(`tas-sync grant-reader: warning: ${w}\n`);
    return 0;
  } finally {
    await store.close();
  }
};

/** --password env:NAME: the password from the environment, never from the command line. */
function passwordFlag(flags: Flags): string | undefined {
  const v = flags.password;
  if (v === undefined) return undefined;
  const m = typeof v === "string" ? /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(v) : null;
  if (!m)
    throw new UsageError(
      "--password takes env:NAME (the name of an environment variable that holds the password), never the password itself: the command line is visible to every user of the machine",
    );
  const name = m[1] as string;
  const value = process.env[name];
  if (value === undefined || value === "")
    throw new UsageError(`--password env:${name}: the environment variable ${name} is not set or empty`);
  return value;
}
