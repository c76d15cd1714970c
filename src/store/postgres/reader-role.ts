/**
 * `tas-sync grant-reader ROLE`: a PostgreSQL login role that can SELECT the mirror's tables and
 * views and nothing else, for `query`, psql and BI tools (Metabase, Grafana). The server's
 * privileges are what make it read-only, whatever the SQL: no superuser, no membership in any
 * role (pg_read_server_files, pg_signal_backend, ... included), no write privilege and no
 * CREATE on the mirror's schema, default privileges so that tables a later migration adds are
 * readable too, and default_transaction_read_only as a second fence. One transaction; running it
 * again brings the role back to exactly this.
 */
import type pg from "pg";
import { UserError } from "../../errors.js";

export interface ReaderGrant {
  role: string;
  /** A SCRAM verifier (scram.ts) to set as the role's password; absent: the password is left as it is. */
  passwordVerifier?: string;
}

export interface ReaderReport {
  created: boolean;
  database: string;
  schema: string;
  /** Tables and views the role may SELECT. */
  relations: number;
  /** Roles whose future tables in the schema are readable by default. */
  defaultsFor: string[];
  /** Memberships taken away. */
  revoked: string[];
  /** What the role can still do beyond reading, through PUBLIC, with the statement that stops it. */
  warnings: string[];
}

class ReaderRoleError extends UserError {
  override name = "ReaderRoleError";
}

const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;

export async function grantReader(pool: pg.Pool, grant: ReaderGrant): Promise<ReaderReport> {
  const { role } = grant;
  if (!ROLE_NAME.test(role))
    throw new ReaderRoleError(
      `role name "${role}" is not a plain name: use letters, digits, _ and - (at most 63, not starting with a digit)`,
    );
  if (/^pg_/i.test(role))
    throw new ReaderRoleError(`role name "${role}": names starting with pg_ are reserved`);
  const client = await pool.connect();
  const q = (sql: string, params: unknown[] = []) => client.query(sql, params);
  const id = client.escapeIdentifier(role);
  try {
    await q("BEGIN");
    const me = (await q("SELECT current_user AS me, current_schema() AS schema, current_database() AS db"))
      .rows[0] as { me: string; schema: string; db: string };
    const schemaId = client.escapeIdentifier(me.schema);
    const dbId = client.escapeIdentifier(me.db);
    if (role === me.me)
      throw new ReaderRoleError(
        `"${role}" is the role this command connects as (it owns or writes the mirror): choose another name`,
      );
    const existing = (await q("SELECT rolsuper FROM pg_roles WHERE rolname = $1", [role])).rows[0] as
      | { rolsuper: boolean }
      | undefined;
    if (existing?.rolsuper)
      throw new ReaderRoleError(
        `"${role}" is a superuser: grant-reader does not demote it; choose another name (or ALTER ROLE ${id} NOSUPERUSER first)`,
      );
    const owned = (
      await q(
        `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND pg_get_userbyid(c.relowner) = $2`,
        [me.schema, role],
      )
    ).rows[0] as { n: number };
    if (owned.n > 0)
      throw new ReaderRoleError(
        `"${role}" owns ${owned.n} of the mirror's tables: an owner can write them; choose another name`,
      );

    const attributes = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT";
    await q(`${existing ? "ALTER" : "CREATE"} ROLE ${id} WITH ${attributes}`);
    if (grant.passwordVerifier !== undefined)
      await q(`ALTER ROLE ${id} WITH PASSWORD ${client.escapeLiteral(grant.passwordVerifier)}`);
    await q(`ALTER ROLE ${id} SET default_transaction_read_only = on`);

    // Nothing but its own privileges: every membership goes (predefined roles included).
    const memberships = (
      await q(
        `SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
          JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = $1 ORDER BY 1`,
        [role],
      )
    ).rows as { rolname: string }[];
    for (const m of memberships) await q(`REVOKE ${client.escapeIdentifier(m.rolname)} FROM ${id}`);

    await q(`REVOKE ALL ON DATABASE ${dbId} FROM ${id}`);
    await q(`GRANT CONNECT ON DATABASE ${dbId} TO ${id}`);
    await q(`REVOKE ALL ON SCHEMA ${schemaId} FROM ${id}`);
    await q(`GRANT USAGE ON SCHEMA ${schemaId} TO ${id}`);
    await q(`REVOKE ALL ON ALL TABLES IN SCHEMA ${schemaId} FROM ${id}`);
    await q(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schemaId} FROM ${id}`);
    await q(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schemaId} TO ${id}`);

    // Tables that later migrations add: created by the role that migrates (this one) or by
    // whoever owns the tables today.
    const owners = (
      await q(
        `SELECT DISTINCT pg_get_userbyid(c.relowner) AS owner FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm')
         UNION SELECT current_user ORDER BY 1`,
        [me.schema],
      )
    ).rows as { owner: string }[];
    const defaultsFor: string[] = [];
    const warnings: string[] = [];
    for (const { owner } of owners) {
      await q("SAVEPOINT defaults");
      try {
        await q(
          `ALTER DEFAULT PRIVILEGES FOR ROLE ${client.escapeIdentifier(owner)} IN SCHEMA ${schemaId} GRANT SELECT ON TABLES TO ${id}`,
        );
        await q("RELEASE SAVEPOINT defaults");
        defaultsFor.push(owner);
      } catch {
        await q("ROLLBACK TO SAVEPOINT defaults");
        warnings.push(
          `tables that role "${owner}" creates later are not readable by default (this role may not set its defaults): run grant-reader again after a migration`,
        );
      }
    }

    const relations = (
      await q(
        `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND has_table_privilege($2, c.oid, 'SELECT')`,
        [me.schema, role],
      )
    ).rows[0] as { n: number };
    warnings.push(...(await beyondReading(client, role, me.schema, me.db)));
    await q("COMMIT");
    return {
      created: !existing,
      database: me.db,
      schema: me.schema,
      relations: relations.n,
      defaultsFor,
      revoked: memberships.map((m) => m.rolname),
      warnings,
    };
  } catch (err) {
    await q("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** What the role may still do beyond reading (through PUBLIC's grants), each with its remedy. */
async function beyondReading(
  client: pg.PoolClient,
  role: string,
  schema: string,
  db: string,
): Promise<string[]> {
  const { rows } = await client.query(
    `SELECT has_schema_privilege($1, $2, 'CREATE') AS schema_create,
            has_database_privilege($1, $3, 'CREATE') AS db_create,
            EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = $2 AND c.relkind IN ('r', 'p')
                       AND has_table_privilege($1, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')) AS writes`,
    [role, schema, db],
  );
  const r = rows[0] as { schema_create: boolean; db_create: boolean; writes: boolean };
  const s = client.escapeIdentifier(schema);
  const d = client.escapeIdentifier(db);
  const out: string[] = [];
  if (r.schema_create)
    out.push(
      `"${role}" may create tables in schema ${schema} through PUBLIC: REVOKE CREATE ON SCHEMA ${s} FROM PUBLIC`,
    );
  if (r.db_create)
    out.push(
      `"${role}" may create schemas in database ${db} through PUBLIC: REVOKE CREATE ON DATABASE ${d} FROM PUBLIC`,
    );
  if (r.writes)
    out.push(
      `"${role}" may still write some of the mirror's tables through PUBLIC: REVOKE ... FROM PUBLIC on them`,
    );
  return out;
}
