/**
 * The connection pool of one Store, with its own type parsers (never pg's global ones):
 * timestamptz comes back as ISO 8601 UTC with milliseconds, exactly the text SQLite holds
 * ("2026-11-22T19:53:43.123Z"), and int8 as a number (ids stay below 2^53). Each session runs
 * in UTC with ISO dates, so the parser sees one format.
 */
import pg from "pg";
import type { Secret } from "../../secret.js";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything a statement can run on: the pool, or one client (inside a transaction). */
export type Db = pg.Pool | pg.PoolClient;

const INT8 = 20;
const TIMESTAMPTZ = 1184;

export interface PoolOptions {
  max?: number;
  /** How 64-bit integers come back: numbers for the store, bigints for people's queries. */
  int8?: "number" | "bigint";
}

/** How every connection of tas-sync is opened: the password goes to the driver only. */
export function connectionConfig(url: Secret, opts: PoolOptions = {}): pg.ClientConfig {
  const int8 = opts.int8 === "bigint" ? (v: string) => BigInt(v) : (v: string) => Number(v);
  return {
    connectionString: url.reveal(),
    application_name: "tas-sync",
    options: "-c TimeZone=UTC -c DateStyle=ISO",
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === TIMESTAMPTZ) return isoFromPg;
        if (oid === INT8) return int8;
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  };
}

export function createPool(url: Secret, opts: PoolOptions = {}): Pool {
  const pool = new pg.Pool({ ...connectionConfig(url, opts), max: opts.max ?? 10 });
  // An idle client whose server went away: the next statement reports it; do not crash here.
  pool.on("error", () => {});
  return pool;
}

// "2026-11-22 19:53:43.123+00", fraction optional and up to 6 digits, " BC" for years <= 0.
const PG_TIMESTAMPTZ = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?\+00( BC)?$/;

/** A timestamptz as PostgreSQL prints it (UTC, ISO style) to the mirror's ISO text. */
export function isoFromPg(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (m === null) return text; // infinity, -infinity: kept as PostgreSQL says them
  const [, y = "", mo, d, h, mi, s, frac = "", bc] = m;
  // ISO 8601 counts 1 BC as year 0000 (normalize/ writes years 0000..9999).
  const year = bc ? String(1 - Number(y)).padStart(4, "0") : y;
  return `${year}-${mo}-${d}T${h}:${mi}:${s}.${frac.slice(0, 3).padEnd(3, "0")}Z`;
}

/** An ISO timestamp as PostgreSQL takes it: year 0000 is 1 BC there. */
export function isoToPg(iso: string | null | undefined): string | null {
  if (iso === null || iso === undefined) return null;
  return iso.startsWith("0000-") ? `0001${iso.slice(4)} BC` : iso;
}
