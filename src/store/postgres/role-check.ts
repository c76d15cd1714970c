/**
 * What the role `query` connects as may do beyond reading. The server's privileges are what
 * keep a query read-only in the end: a superuser, or a role that may write the mirror's tables,
 * is worth a warning (`tas-sync grant-reader` makes a role that can only read).
 */
import type pg from "pg";

const ADVICE = "connect as a reader role (tas-sync grant-reader ROLE; see docs/security.md)";

/** Zero or one warning line about the connected role. */
export async function roleWarnings(db: pg.ClientBase): Promise<string[]> {
  const { rows } = await db.query<{ role: string; superuser: boolean; writes: boolean }>(
    `SELECT current_user AS role, r.rolsuper AS superuser,
            EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
                       AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')) AS writes
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const row = rows[0];
  if (row === undefined) return [];
  const role = JSON.stringify(row.role);
  if (row.superuser)
    return [
      `warning: role ${role} is a superuser: the server would let it read files and run programs; ${ADVICE}`,
    ];
  if (row.writes) return [`warning: role ${role} may write the mirror's tables; ${ADVICE}`];
  return [];
}
