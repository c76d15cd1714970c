/**
 * Test databases on the PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/postgres):
 * each made with a name that says which process made it (tas_test_<owner>_..., see owner.ts) and
 * dropped by whoever made it, never another; what a process could not drop (it was killed, the
 * drop hung) the next sweep removes once that process is gone (test/global-setup.ts).
 */
import pg from "pg";
import { maskUrl } from "../../src/config/index.js";
import { withDeadline } from "../../src/deadline.js";
import { CLEANUP_MS } from "./bounded.js";
import { testDatabaseName } from "./owner.js";

export const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** A DROP DATABASE takes well under a second, but tens of seconds on a loaded server. */
const DROP_MS = 40_000;

/** Empties every table of a test database (between the tests of one file). */
export async function truncateAll(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query(
    "SELECT string_agg(quote_ident(tablename), ', ') AS t FROM pg_tables WHERE schemaname = 'public'",
  );
  await pool.query(`TRUNCATE ${rows[0].t}`);
}

/** Creates and drops the databases of one test file. */
export class TestDatabases {
  readonly #made: string[] = [];
  #admin: pg.Pool | null = null;

  #pool(): pg.Pool {
    // A statement that waits past this (a DROP behind a lock) gives up instead of holding a hook.
    this.#admin ??= new pg.Pool({ connectionString: PG_URL, max: 4, statement_timeout: DROP_MS });
    return this.#admin;
  }

  /** A new, empty database (or a copy of `template`, a database this made); returns its URL. */
  async create(opts: { template?: string } = {}): Promise<string> {
    const name = testDatabaseName();
    try {
      if (opts.template !== undefined) {
        const template = new URL(opts.template).pathname.slice(1);
        if (!this.#made.includes(template)) throw new Error(`${template} is not a test database`);
        await this.#pool().query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      } else {
        // A linguistic collation, as most installations have ("B" < "a" is false there): text
        // that must sort as in SQLite says COLLATE "C". Plain CREATE where ICU is not built in.
        await this.#pool()
          .query(
            `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
          )
          .catch(() => this.#pool().query(`CREATE DATABASE ${name}`));
      }
    } catch (err) {
      throw new Error(
        `PostgreSQL at ${maskUrl(PG_URL)} cannot create a test database (${(err as Error).message}): start it or set PG_URL`,
      );
    }
    this.#made.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /**
   * Drops every database this made (closing what is still connected to them), in at most
   * `ms`: a hook never waits on a drop for its whole timeout. What is not dropped by then is
   * named on stderr and left to the sweep (test/global-setup.ts), which removes it once this
   * process is gone.
   */
  async dropAll(ms = CLEANUP_MS): Promise<void> {
    const names = this.#made.splice(0);
    const admin = this.#admin;
    this.#admin = null;
    if (!admin) return;
    const left = new Set(names);
    // Side by side (the pool's connections): a slow drop is mostly waiting, not working.
    const drops = Promise.all(
      names.map(async (name) => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        left.delete(name);
      }),
    );
    const o = await withDeadline(drops, ms);
    if (left.size > 0) {
      const why = !o.settled
        ? `not done in ${ms} ms`
        : "error" in o
          ? String((o.error as Error).message)
          : "";
      console.warn(
        `test databases not dropped (${why}); the next sweep removes them: ${[...left].join(", ")}`,
      );
    }
    // A pool with a query still running would wait for it: end it without waiting long.
    await withDeadline(admin.end(), 2000);
  }
}

/** `?` placeholders (outside quotes) as $1, $2, ... */
export function numberedParams(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (m) => (m === "?" ? `$${++n}` : m));
}

/** Booleans as 0/1, as SQLite gives them. */
export function sqliteLike<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = typeof v === "boolean" ? (v ? 1 : 0) : v;
  return out as T;
}
