/**
 * Test databases on the PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/postgres):
 * each made with a random name (tas_test_...) and dropped by whoever made it, never another.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { maskUrl } from "../../src/config/index.js";

export const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Creates and drops the databases of one test file. */
export class TestDatabases {
  readonly #made: string[] = [];
  #admin: pg.Pool | null = null;

  #pool(): pg.Pool {
    this.#admin ??= new pg.Pool({ connectionString: PG_URL, max: 2 });
    return this.#admin;
  }

  /** A new, empty database (or a copy of `template`, a database this made); returns its URL. */
  async create(opts: { template?: string } = {}): Promise<string> {
    const name = `tas_test_${randomBytes(6).toString("hex")}`;
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

  /** Drops every database this made (closing what is still connected to them). */
  async dropAll(): Promise<void> {
    for (const name of this.#made.splice(0))
      await this.#pool().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await this.#admin?.end();
    this.#admin = null;
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
