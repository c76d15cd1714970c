/**
 * Ages a database as years of a daemon would, fast: old run records, sync errors and rejected
 * records bulk-inserted in SQL (one statement per table). Their ids are negative, below every
 * real one, and their start times older than `before`: they read as history written before the
 * database's real runs, so "the newest run" is still a real one.
 */
import type { Store } from "../src/store/port.js";
import type { PostgresStore } from "../src/store/postgres/index.js";
import type { SqliteStore } from "../src/store/sqlite/index.js";

export interface Aging {
  runs: number;
  errors: number;
  rejected: number;
  /** Company ids the runs are spread over, in turn. */
  companies: readonly number[];
  /** The newest aged run started this long before `before` … */
  before: Date;
  /** … and each older one this many seconds before the next. */
  spacingSeconds: number;
  /** Bytes of each rejected record's raw_json (default 200). */
  rejectedBytes?: number;
}

/** Inserts the aged rows; returns the ms it took. */
export async function ageDatabase(store: Store, a: Aging): Promise<number> {
  const t0 = performance.now();
  const companies = a.companies.join(",");
  const n = a.companies.length;
  const raw = JSON.stringify({ id: "x".repeat(Math.max(0, (a.rejectedBytes ?? 200) - 12)) });
  // One run in 20 failed (with the error text a failed run has); the rest succeeded, no change.
  if (store.dialect === "sqlite") {
    const db = (store as SqliteStore).sqlite;
    const series = (count: number) =>
      `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${count})`;
    db.transaction(() => {
      db.prepare(
        `${series(a.runs)}
         INSERT INTO sync_runs (id, company_id, trigger, started_at, finished_at, status, fetched, unchanged, error, owner_host, owner_pid, heartbeat_at)
         SELECT -i, (SELECT value FROM json_each('[${companies}]') WHERE key = i % ${n}), 'schedule',
           strftime('%Y-%m-%dT%H:%M:%fZ', :before, '-' || (i * ${a.spacingSeconds}) || ' seconds'),
           strftime('%Y-%m-%dT%H:%M:%fZ', :before, '-' || (i * ${a.spacingSeconds} - 2) || ' seconds'),
           CASE WHEN i % 20 = 0 THEN 'failed' ELSE 'succeeded' END, 2000, 2000,
           CASE WHEN i % 20 = 0 THEN 'plans: timed out after 30000 ms' END, 'aged', 1,
           strftime('%Y-%m-%dT%H:%M:%fZ', :before, '-' || (i * ${a.spacingSeconds}) || ' seconds')
         FROM s`,
      ).run({ before: a.before.toISOString() });
      db.prepare(
        `${series(a.errors)}
         INSERT INTO sync_errors (id, run_id, entity, entity_id, code, http_status, message)
         SELECT -i, -((i * 7) % ${a.runs} + 1), 'plans', NULL, 'TIMEOUT', NULL,
           'GET /api/plans timed out after 30000 ms (host 127.0.0.1:9)' FROM s`,
      ).run();
      db.prepare(
        `${series(a.rejected)}
         INSERT INTO rejected_records (id, company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
           first_seen_at, last_seen_at, seen_runs, raw_json)
         SELECT -i, r.company_id, 'plan', NULL, 'aged:' || i, 'no usable id: the element is a string', r.id, r.id,
           r.started_at, r.started_at, 1, :raw
         FROM s JOIN sync_runs r ON r.id = -((i * 11) % ${a.runs} + 1)`,
      ).run({ raw });
    })();
  } else {
    const pool = (store as PostgresStore).pool;
    await pool.query(
      `INSERT INTO sync_runs (id, company_id, trigger, started_at, finished_at, status, fetched, unchanged, error, owner_host, owner_pid, heartbeat_at)
       SELECT -i, ($2::bigint[])[i % ${n} + 1], 'schedule',
         $1::timestamptz - i * interval '${a.spacingSeconds} seconds',
         $1::timestamptz - i * interval '${a.spacingSeconds} seconds' + interval '2 seconds',
         CASE WHEN i % 20 = 0 THEN 'failed' ELSE 'succeeded' END, 2000, 2000,
         CASE WHEN i % 20 = 0 THEN 'plans: timed out after 30000 ms' END, 'aged', 1,
         $1::timestamptz - i * interval '${a.spacingSeconds} seconds'
       FROM generate_series(1, ${a.runs}) AS i`,
      [a.before.toISOString(), a.companies],
    );
    await pool.query(
      `INSERT INTO sync_errors (id, run_id, entity, entity_id, code, http_status, message)
       SELECT -i, -((i * 7) % ${a.runs} + 1), 'plans', NULL, 'TIMEOUT', NULL,
         'GET /api/plans timed out after 30000 ms (host 127.0.0.1:9)' FROM generate_series(1, ${a.errors}) AS i`,
    );
    await pool.query(
      `INSERT INTO rejected_records (id, company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
         first_seen_at, last_seen_at, seen_runs, raw_json)
       SELECT -i, r.company_id, 'plan', NULL, 'aged:' || i, 'no usable id: the element is a string', r.id, r.id,
         r.started_at, r.started_at, 1, $1
       FROM generate_series(1, ${a.rejected}) AS i JOIN sync_runs r ON r.id = -((i * 11) % ${a.runs} + 1)`,
      [raw],
    );
    // As autovacuum would soon after (and not during the measures): the planner then knows the
    // tables' sizes, and the visibility map is set.
    await pool.query("VACUUM ANALYZE sync_runs, sync_errors, rejected_records");
  }
  return performance.now() - t0;
}

/** Rows of the three aged tables. */
export async function historyCounts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ["sync_runs", "sync_errors", "rejected_records"]) {
    if (store.dialect === "sqlite")
      out[t] = (store as SqliteStore).sqlite.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
    else
      out[t] = Number(
        (await (store as PostgresStore).pool.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n,
      );
  }
  return out;
}

/** One recent succeeded run per company: the state a daemon's companies are in, fresh or aged. */
export async function recentRuns(store: Store, companies: readonly number[], at: Date): Promise<void> {
  for (const company of companies) {
    const id = await store.runs.start({
      companyId: company,
      trigger: "schedule",
      startedAt: at.toISOString(),
      owner: { host: "bench", pid: 1 },
    });
    await store.runs.finish(id, {
      status: "succeeded",
      counts: { fetched: 2000, inserted: 0, updated: 0, unchanged: 2000, deleted: 0, rejected: 0 },
      finishedAt: new Date(at.getTime() + 2000).toISOString(),
      error: null,
    });
  }
}
