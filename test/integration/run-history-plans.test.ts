/**
 * Every query the daemon, `status` and a sync make over run history (sync_runs, sync_errors,
 * rejected_records, schema_changes) is answered from an index, on both stores: the statements
 * are captured as the store really sends them (a no-change sync, the company states that
 * status, /metrics and the freshness check read, the open runs that reaping reads, the open
 * schema changes, a prune and a dry one), then their plans are read: EXPLAIN QUERY PLAN on
 * SQLite (no SCAN of those tables), EXPLAIN on PostgreSQL with enable_seqscan off (no Seq Scan
 * of them: with it off, a Seq Scan is left only where no index can serve).
 */
import { readdirSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { prune } from "../../src/retention/prune.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import { storeKinds } from "../support/stores.js";
import { FIRST, type Harness, startHarness } from "./sync-harness.js";

/** Tables that grow with every run: no full scan of them is allowed. */
const HISTORY = ["sync_runs", "sync_errors", "rejected_records", "schema_changes"];
const mentionsHistory = (sql: string) => HISTORY.some((t) => new RegExp(`\\b${t}\\b`).test(sql));
const isQuery = (sql: string) => /^\s*(SELECT|WITH|DELETE|UPDATE)\b/i.test(sql);
/** The migrations' own statements run once, on a schema that later migrations change: not run history's reads. */
const MIGRATION_STATEMENTS = new Set(
  ["sqlite", "postgres"].flatMap((d) => {
    const dir = new URL(`../../migrations/${d}/`, import.meta.url);
    return readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .flatMap((f) => readFileSync(new URL(f, dir), "utf8").split("--> statement-breakpoint"))
      .map((st) => st.trim());
  }),
);

interface Captured {
  sql: string;
  values?: unknown[];
}
let capturing = false;
const captured = new Map<string, Captured>();
const capture = (sql: string, values?: unknown[]) => {
  if (!capturing || !isQuery(sql) || !mentionsHistory(sql) || captured.has(sql)) return;
  if (MIGRATION_STATEMENTS.has(sql.trim())) return;
  captured.set(sql, values === undefined ? { sql } : { sql, values });
};

// Both drivers' prototypes: every statement any connection sends passes here.
const sqlitePrepare = Database.prototype.prepare;
const pgQuery = pg.Client.prototype.query;
beforeAll(() => {
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    capture(sql);
    return sqlitePrepare.call(this, sql);
  } as typeof sqlitePrepare;
  pg.Client.prototype.query = function (
    this: pg.Client,
    config: unknown,
    values?: unknown,
    ...rest: unknown[]
  ) {
    if (typeof config === "string") capture(config, Array.isArray(values) ? values : undefined);
    else if (config && typeof config === "object" && "text" in config) {
      const c = config as { text: string; values?: unknown[] };
      capture(c.text, c.values ?? (Array.isArray(values) ? values : undefined));
    }
    return (pgQuery as (...a: unknown[]) => unknown).call(this, config, values, ...rest);
  } as typeof pgQuery;
});
afterAll(() => {
  Database.prototype.prepare = sqlitePrepare;
  pg.Client.prototype.query = pgQuery;
});

const retention = configSchema({}).parse({
  baseUrl: "http://127.0.0.1:1",
  auth: { token: "t" },
  companies: [{ id: FIRST }],
}).retention;

/** Parameters of a SQLite statement, all NULL: its plan does not depend on them. */
function nullParams(sql: string): unknown[] | Record<string, null> {
  const named = [...sql.matchAll(/[:@$]([A-Za-z_]\w*)/g)].map((m) => m[1] as string);
  if (named.length) return Object.fromEntries(named.map((n) => [n, null]));
  return Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
}

/** SCAN lines of a SQLite plan that read a history table whole. */
function sqliteScans(store: SqliteStore, sql: string): string[] {
  const stmt = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const params = nullParams(sql);
  const rows = (Array.isArray(params) ? stmt.all(...params) : stmt.all(params)) as { detail: string }[];
  // Aliases (FROM sync_runs r) are named in the plan by the alias.
  const aliases = new Set(HISTORY);
  for (const m of sql.matchAll(
    /\b(sync_runs|sync_errors|rejected_records|schema_changes)\s+(?:AS\s+)?([a-z]\w*)\b/gi,
  )) {
    const alias = m[2] as string;
    if (!/^(WHERE|ON|JOIN|LEFT|ORDER|GROUP|SET|LIMIT|USING|INNER|WITH)$/i.test(alias)) aliases.add(alias);
  }
  // A partial index holds only the rows its WHERE names (running runs, open changes): reading
  // it whole reads those, however long the history.
  const partial = new Set(
    (
      store.sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'")
        .all() as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
  return rows
    .map((r) => r.detail)
    .filter((d) => {
      const m = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(d);
      return m !== null && aliases.has(m[1] as string) && !(m[2] && partial.has(m[2]));
    });
}

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PgNode[];
}
/**
 * Seq Scans of a history table, and index scans of one without an index condition: those walk
 * the whole index (the primary key backwards, filtering by company, say).
 */
function pgSeqScans(node: PgNode, partial: ReadonlySet<string>): string[] {
  const relation = node["Relation Name"] ?? "";
  const type = node["Node Type"];
  const own = !HISTORY.includes(relation)
    ? []
    : type === "Seq Scan"
      ? [`Seq Scan on ${relation}`]
      : /^Index (Only )?Scan$/.test(type) && !node["Index Cond"] && !partial.has(node["Index Name"] ?? "")
        ? [`${type} using ${node["Index Name"]} on ${relation} without an index condition`]
        : [];
  return [...own, ...(node.Plans ?? []).flatMap((n) => pgSeqScans(n, partial))];
}

describe.each(storeKinds())("run-history query plans on $name", (kind) => {
  let h: Harness;
  afterEach(async () => {
    capturing = false;
    await h?.close();
  });
  afterAll(() => kind.cleanup());

  it("reads run history only through indexes", async () => {
    // From the start: a connection prepares each statement once (the first sync's).
    capturing = true;
    h = await startHarness(kind, { plans: 30, reports: 1 });
    await h.sync(FIRST);
    // Some history to prune: old runs with errors and rejected records.
    const old = "2020-01-01T00:00:00.000Z";
    for (let i = 0; i < 50; i++) {
      const id = await h.scalar<number>(
        "INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status) VALUES (?, 's', ?, ?, 'succeeded') RETURNING id",
        FIRST,
        old,
        old,
      );
      await h.rows(
        "INSERT INTO sync_errors (run_id, entity, code, message) VALUES (?, 'plans', 'X', 'x') RETURNING id",
        id,
      );
      await h.rows(
        `INSERT INTO rejected_records (company_id, entity, content_hash, reason, first_run_id, last_run_id,
           first_seen_at, last_seen_at, seen_runs)
         SELECT company_id, 'plan', 'h' || id, 'bad', id, id, started_at, started_at, 1 FROM sync_runs WHERE id = ?
         RETURNING id`,
        id,
      );
    }
    await h.sync(FIRST); // no change
    await h.store.runs.companyStates([FIRST, FIRST + 100]);
    await h.store.runs.open();
    await h.store.schema.openChanges([FIRST]);
    await prune(h.store, retention, { dryRun: true });
    const report = await prune(h.store, retention);
    capturing = false;
    expect(report.removed.sync_runs).toBe(50);

    const statements = [...captured.values()];
    captured.clear();
    if (process.env.SHOW_PLANS) for (const st of statements) console.log(st.sql.replace(/\s+/g, " "));
    // The statements looked at include the ones the issue names.
    const texts = statements.map((s) => s.sql).join("\n");
    // Each company's latest finished run (status, metrics, freshness), named by its state row,
    // which the statement that ends a run keeps.
    expect(texts).toMatch(/ON r\.id = st\.last_run_id/);
    expect(texts).toMatch(/status <> 'running'/);
    expect(texts).toMatch(/= 'running'/); // open runs (reaping)
    expect(texts).toMatch(/acknowledged_at IS NULL/); // open schema changes
    expect(texts).toMatch(/DELETE FROM sync_runs/);

    const problems: string[] = [];
    if (kind.name === "sqlite") {
      const store = h.store as SqliteStore;
      for (const s of statements)
        for (const scan of sqliteScans(store, s.sql))
          problems.push(`${scan}\n  in: ${s.sql.replace(/\s+/g, " ")}`);
    } else {
      const client = await (h.store as PostgresStore).pool.connect();
      try {
        // Statistics of a long history (30 companies, 30,000 runs), so that the planner plans as
        // it would for one: with a few rows any plan is cheap and it may pick one that is not
        // (the primary key walked back from the newest run of any company).
        await client.query(
          `INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status)
           SELECT 900000 + i % 30, 's', now() - i * interval '1 minute', now() - i * interval '1 minute', 'succeeded'
           FROM generate_series(1, 30000) AS i`,
        );
        await client.query(
          `INSERT INTO rejected_records (company_id, entity, content_hash, reason, first_run_id, last_run_id,
             first_seen_at, last_seen_at, seen_runs)
           SELECT company_id, 'plan', 'h' || id, 'bad', id, id, started_at, started_at, 1 FROM sync_runs WHERE id % 3 = 0;
           INSERT INTO sync_errors (run_id, entity, code, message) SELECT id, 'plans', 'X', 'x' FROM sync_runs WHERE id % 3 = 1;
           ANALYZE sync_runs, rejected_records, sync_errors`,
        );
        await client.query("SET enable_seqscan = off");
        // A partial index holds only the rows its WHERE names: read whole, it reads those.
        const partial = new Set(
          (
            await client.query<{ name: string }>(
              "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE '% WHERE %'",
            )
          ).rows.map((r) => r.name),
        );
        for (const s of statements) {
          const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${s.sql}`, s.values ?? []);
          const plan = (rows[0] as { "QUERY PLAN": { Plan: PgNode }[] })["QUERY PLAN"][0]?.Plan as PgNode;
          for (const scan of pgSeqScans(plan, partial))
            problems.push(`${scan}\n  in: ${s.sql.replace(/\s+/g, " ")}`);
          if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
        }
      } finally {
        client.release();
      }
    }
    expect(problems).toEqual([]);
  });
});
