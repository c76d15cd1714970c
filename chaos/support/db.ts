/**
 * The databases of the chaos runner: a SQLite file in a temp dir, or a fresh PostgreSQL
 * database at PG_URL (dropped afterwards), read with plain SQL; dumps of the synced tables
 * that ignore timestamps and run ids; and the integrity checks run after a kill.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { maskUrl } from "../../src/config/index.js";
import { PLAN_CHILD_TABLES, REPORT_CHILD_TABLES } from "../../src/tables/table-names.js";

export type StoreName = "sqlite" | "postgres";

const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Null when PostgreSQL answers and may create databases; else why not. */
export async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (err) {
    return `PostgreSQL at ${maskUrl(PG_URL)} does not answer (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** `?` placeholders (outside quotes) as $1, $2, ... */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (m) => (m === "?" ? `$${++n}` : m));
}

export interface Db {
  store: StoreName;
  /** The config's `database` value. */
  database: string;
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  scalar(sql: string, ...params: unknown[]): Promise<number>;
  /** Closes this runner's connections (the database stays). */
  release(): Promise<void>;
}

/** Makes databases of one store kind and removes them all at the end. */
export class Databases {
  readonly #dir = mkdtempSync(join(tmpdir(), "tas-chaos-"));
  readonly #made: string[] = [];
  readonly #dbs: Db[] = [];
  #admin: pg.Pool | null = null;
  #n = 0;

  constructor(readonly store: StoreName) {}

  get dir(): string {
    return this.#dir;
  }

  async fresh(): Promise<Db> {
    const db = this.store === "sqlite" ? this.#sqlite() : await this.#postgres();
    this.#dbs.push(db);
    return db;
  }

  #sqlite(): Db {
    const path = join(this.#dir, `db${this.#n++}.sqlite`);
    // Opened per query: a connection held across a kill would keep the WAL from being checked
    // the way the next process sees it.
    const withDb = <T>(fn: (d: Database.Database) => T): T => {
      const d = new Database(path, { fileMustExist: true });
      try {
        d.pragma("busy_timeout = 60000");
        return fn(d);
      } finally {
        d.close();
      }
    };
    const rows = async <T>(sql: string, ...params: unknown[]) =>
      withDb((d) => d.prepare(sql).all(...params) as T[]);
    return {
      store: "sqlite",
      database: path,
      rows,
      async scalar(sql, ...params) {
        const [first] = await rows<Record<string, unknown>>(sql, ...params);
        return Number(first === undefined ? Number.NaN : Object.values(first)[0]);
      },
      async release() {},
    };
  }

  async #postgres(): Promise<Db> {
    this.#admin ??= new pg.Pool({ connectionString: PG_URL, max: 2 });
    const name = `tas_chaos_${randomBytes(6).toString("hex")}`;
    await this.#admin.query(`CREATE DATABASE ${name}`);
    this.#made.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    let pool: pg.Pool | null = null;
    const rows = async <T>(sql: string, ...params: unknown[]) => {
      pool ??= new pg.Pool({ connectionString: url.toString(), max: 2 });
      const res = await pool.query(numbered(sql), params);
      return res.rows as T[];
    };
    return {
      store: "postgres",
      database: url.toString(),
      rows,
      async scalar(sql, ...params) {
        const [first] = await rows<Record<string, unknown>>(sql, ...params);
        return Number(first === undefined ? Number.NaN : Object.values(first)[0]);
      },
      async release() {
        await pool?.end();
        pool = null;
      },
    };
  }

  #cleaned: Promise<void> | null = null;

  /** Drops every database made and removes the temp dir; once, whoever asks first. */
  cleanup(): Promise<void> {
    this.#cleaned ??= this.#cleanup();
    return this.#cleaned;
  }

  async #cleanup(): Promise<void> {
    for (const db of this.#dbs.splice(0)) await db.release().catch(() => {});
    for (const name of this.#made.splice(0))
      await this.#admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await this.#admin?.end();
    this.#admin = null;
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** The tables a sync writes (run bookkeeping left out). */
const SYNC_TABLES = [
  "plans",
  ...PLAN_CHILD_TABLES,
  "mobile_apps",
  "scheduled_reports",
  ...REPORT_CHILD_TABLES,
  "plan_versions",
  "report_versions",
  "rejected_records",
] as const;

/** Long texts (raw JSON) by their digest: the dump stays small and quick to sort. */
function digestOf(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("base64")}`;
}

/**
 * One row as text: timestamps become whether they are set (a deletion or a closed version
 * still shows), run ids and autoincrement ids are left out; keys sorted.
 */
function rowText(table: string, row: Record<string, unknown>): string {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(row)) {
    if (k === "version_id" || k === "run_id" || k.endsWith("_run_id")) continue;
    if (table === "rejected_records" && k === "id") continue;
    if (k.endsWith("_at") || k === "valid_from" || k === "valid_to") out.push([k, v !== null]);
    else if (typeof v === "string" && v.length > 64) out.push([k, digestOf(v)]);
    else out.push([k, typeof v === "bigint" ? String(v) : v]);
  }
  out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(out);
}

export interface Dump {
  rows: number;
  perTable: Record<string, string[]>;
  digest: string;
}

export async function dump(db: Db, tables: readonly string[] = SYNC_TABLES): Promise<Dump> {
  const perTable: Record<string, string[]> = {};
  const hash = createHash("sha256");
  let rows = 0;
  for (const table of tables) {
    const lines = (await db.rows<Record<string, unknown>>(`SELECT * FROM ${table}`)).map((r) =>
      rowText(table, r),
    );
    lines.sort();
    perTable[table] = lines;
    rows += lines.length;
    hash.update(`${table}\n${lines.join("\n")}\n`);
  }
  return { rows, perTable, digest: hash.digest("hex") };
}

/** Empty when equal; else the first differences, per table. */
export function diffDumps(a: Dump, b: Dump, max = 3): string[] {
  if (a.digest === b.digest) return [];
  const out: string[] = [];
  for (const table of Object.keys(a.perTable)) {
    const left = new Set(a.perTable[table]);
    const right = new Set(b.perTable[table]);
    const onlyLeft = [...left].filter((l) => !right.has(l));
    const onlyRight = [...right].filter((l) => !left.has(l));
    if (onlyLeft.length || onlyRight.length)
      out.push(
        `${table}: ${onlyLeft.length} row(s) only left, ${onlyRight.length} only right` +
          [...onlyLeft.slice(0, max).map((l) => `\n    - ${l.slice(0, 300)}`)].join("") +
          [...onlyRight.slice(0, max).map((l) => `\n    + ${l.slice(0, 300)}`)].join(""),
      );
  }
  return out.length ? out : ["same rows, different multiplicity"];
}

/**
 * Problems found after a kill, empty when none: SQLite's integrity_check and foreign key
 * check, and on both stores the same invariants by SQL (no orphan child rows; history
 * intervals never inverted or overlapping; one open version per live record, none for a
 * deleted one; the open version is the mirror's content).
 */
export async function integrityProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  if (db.store === "sqlite") {
    const check = await db.rows<{ integrity_check: string }>("PRAGMA integrity_check");
    const text = check.map((r) => r.integrity_check).join("; ");
    if (text !== "ok") problems.push(`integrity_check: ${text}`);
    const fk = await db.rows("PRAGMA foreign_key_check");
    if (fk.length) problems.push(`foreign_key_check: ${fk.length} row(s)`);
  }
  const count = async (what: string, sql: string) => {
    const n = await db.scalar(sql);
    if (n > 0) problems.push(`${what}: ${n}`);
  };
  // NOT EXISTS, not NOT IN: PostgreSQL may run NOT IN over a large subquery as a loop per row.
  for (const t of PLAN_CHILD_TABLES)
    await count(
      `${t} rows without their plan`,
      `SELECT count(*) FROM ${t} c WHERE NOT EXISTS (SELECT 1 FROM plans p WHERE p.id = c.plan_id)`,
    );
  for (const t of REPORT_CHILD_TABLES)
    await count(
      `${t} rows without their report`,
      `SELECT count(*) FROM ${t} c WHERE NOT EXISTS (SELECT 1 FROM scheduled_reports r WHERE r.id = c.report_id)`,
    );
  await count(
    "plan_mobile_apps rows without their app",
    "SELECT count(*) FROM plan_mobile_apps pm WHERE NOT EXISTS (SELECT 1 FROM mobile_apps m WHERE m.id = pm.mobile_app_id)",
  );
  for (const [versions, mirror] of [
    ["plan_versions", "plans"],
    ["report_versions", "scheduled_reports"],
  ] as const) {
    await count(`${versions} inverted`, `SELECT count(*) FROM ${versions} WHERE valid_to < valid_from`);
    await count(
      `${versions} overlapping`,
      `SELECT count(*) FROM ${versions} a JOIN ${versions} b ON a.id = b.id AND a.version_id < b.version_id
       WHERE (a.valid_to IS NULL OR a.valid_to > b.valid_from) AND (b.valid_to IS NULL OR b.valid_to > a.valid_from)`,
    );
    // The text is stored once: a version without it has the content of its record's row.
    await count(
      `${versions} without their text, whose content is not their row's`,
      `SELECT count(*) FROM ${versions} v JOIN ${mirror} m ON m.id = v.id
       WHERE v.raw_json IS NULL AND v.content_hash <> m.content_hash`,
    );
    await count(
      `${mirror} live without exactly one open version`,
      `SELECT count(*) FROM ${mirror} m WHERE m.deleted_at IS NULL AND
         (SELECT count(*) FROM ${versions} v WHERE v.id = m.id AND v.valid_to IS NULL) <> 1`,
    );
    await count(
      `${mirror} deleted with an open version`,
      `SELECT count(*) FROM ${mirror} m WHERE m.deleted_at IS NOT NULL AND
         EXISTS (SELECT 1 FROM ${versions} v WHERE v.id = m.id AND v.valid_to IS NULL)`,
    );
    await count(
      `${mirror} whose open version is another content`,
      `SELECT count(*) FROM ${mirror} m JOIN ${versions} v ON v.id = m.id AND v.valid_to IS NULL
       WHERE v.content_hash <> m.content_hash`,
    );
    await count(
      `${versions} without a mirror row`,
      `SELECT count(*) FROM ${versions} v WHERE NOT EXISTS (SELECT 1 FROM ${mirror} m WHERE m.id = v.id)`,
    );
  }
  return problems;
}
