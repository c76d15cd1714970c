/**
 * npm run bench:changes — the field-level change log (v_plan_changes) is a view computed when
 * read: what does one plan's change log cost? On each store, a plan with 100 versions (each
 * renames it, moves a scenario, an environment, the period's start and its Android app's
 * versionName) is written into two databases: one holding only it ("alone"), and one where it
 * sits among BENCH_CHANGES_PLANS other plans of 3 versions each ("among others"). Timed, best of
 * 7 in turn:
 *   1. the baseline: the plan's 100 versions read as text (SELECT raw_json FROM v_plan_versions
 *      WHERE id = ?), what any diff made outside SQL must read first;
 *   2. the plan's change log (SELECT * FROM v_plan_changes WHERE id = ?), in both databases.
 * Targets: the change log among others costs at most 1.5x the same alone: it reads the plan's
 * history through the history's index, not the table (the query plan must name
 * plan_versions_id_idx and no scan of plan_versions, checked too). The ratio to the baseline read
 * is printed: what computing the diff in SQL costs over reading the texts. The history is
 * written with SQL straight into the tables (a sync would write the same rows; it is not what
 * is measured). Ends with one verdict line; exits 1 when a target is missed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseTarget } from "../src/config/index.js";
import { startSimulator } from "../src/simulator/server.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres/index.js";
import { openSqliteStore, type SqliteStore } from "../src/store/sqlite/index.js";
import { BenchDatabases, bestInTurn, fmt, Report } from "./support.js";

const OTHERS = Number(process.env.BENCH_CHANGES_PLANS ?? 5_000);
const VERSIONS = 100;
const ROUNDS = 7;
const PLAN = 1_000_000;
const COMPANY = 1;
const T0 = Date.UTC(2025, 0, 1);
const at = (i: number) => new Date(T0 + i * 3_600_000).toISOString();

type Json = Record<string, unknown>;
interface VersionRow {
  id: number;
  hash: string;
  from: string;
  to: string | null;
  raw: string | null;
  run: number;
}
interface Db {
  exec(sql: string, params?: unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Version i of the plan: a few of its fields moved, as a busy team's edits would. */
function edited(base: Json, i: number): Json {
  const scenarios = (base.scenarios as number[]).slice(0, 3);
  const app = base.selected_android_mobile_app as Json | undefined;
  return {
    ...base,
    plan_name: `${base.plan_name} v${i}`,
    scenarios: [...scenarios, 900_000 + i],
    environments: [{ id: 1 }, { id: 100 + (i % 7) }],
    period: { ...(base.period as Json), start_date: 1_700_000_000_000 + i * 60_000 },
    ...(app
      ? {
          selected_android_mobile_app: {
            ...app,
            mobile_app_metadata: (app.mobile_app_metadata as string).replace(
              /"versionName":"[^"]*"/,
              `"versionName":"1.${i}"`,
            ),
          },
        }
      : {}),
  };
}

/** The history: plan PLAN with VERSIONS versions, and `others` plans of 3 versions each. */
function history(bases: Json[], others: number): { plans: [number, string][]; versions: VersionRow[] } {
  const mobile = bases.find((p) => p.selected_android_mobile_app) ?? bases[0];
  if (!mobile) throw new Error("no plan generated");
  const plans: [number, string][] = [];
  const versions: VersionRow[] = [];
  const add = (id: number, texts: string[]) => {
    texts.forEach((text, i) => {
      const last = i === texts.length - 1;
      versions.push({
        id,
        hash: `${id}-${i}`,
        from: at(i),
        to: last ? null : at(i + 1),
        raw: last ? null : text,
        run: i + 1,
      });
    });
    plans.push([id, texts.at(-1) as string]);
  };
  add(
    PLAN,
    Array.from({ length: VERSIONS }, (_, i) => JSON.stringify(edited({ ...mobile, id: PLAN }, i))),
  );
  for (let k = 0; k < others; k++) {
    const base = { ...(bases[k % bases.length] as Json), id: k + 1 };
    add(
      k + 1,
      [0, 1, 2].map((i) => JSON.stringify(edited(base, i))),
    );
  }
  return { plans, versions };
}

async function fill(db: Db, h: { plans: [number, string][]; versions: VersionRow[] }): Promise<void> {
  const CHUNK = 500;
  for (let i = 0; i < VERSIONS; i++)
    await db.exec(
      "INSERT INTO sync_runs (id, company_id, trigger, started_at, status) VALUES ($1, $2, 'bench', $3, 'succeeded')",
      [i + 1, COMPANY, at(i)],
    );
  for (let i = 0; i < h.plans.length; i += CHUNK) {
    const rows = h.plans.slice(i, i + CHUNK);
    const params: unknown[] = [];
    const values = rows.map(([id, raw], k) => {
      params.push(id, COMPANY, raw, `${id}-last`, at(0), at(VERSIONS));
      const p = k * 6;
      return `($${p + 1}, $${p + 2}, 'mobile', $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6})`;
    });
    await db.exec(
      `INSERT INTO plans (id, company_id, platform, raw_json, content_hash, first_seen_at, seen_at) VALUES ${values.join(", ")}`,
      params,
    );
  }
  for (let i = 0; i < h.versions.length; i += CHUNK) {
    const rows = h.versions.slice(i, i + CHUNK);
    const params: unknown[] = [];
    const values = rows.map((v, k) => {
      params.push(v.id, v.hash, v.from, v.to, v.raw, v.run);
      const p = k * 6;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6})`;
    });
    await db.exec(
      `INSERT INTO plan_versions (id, content_hash, valid_from, valid_to, raw_json, run_id) VALUES ${values.join(", ")}`,
      params,
    );
  }
}

function sqliteDb(store: SqliteStore): Db {
  return {
    async exec(sql, params = []) {
      // $n placeholders: SQLite reads them as numbered parameters, bound by position here.
      const stmt = store.sqlite.prepare(sql);
      const args = Object.fromEntries(params.map((p, i) => [String(i + 1), p]));
      if (stmt.reader) return stmt.all(args);
      stmt.run(args);
      return [];
    },
    close: () => store.close(),
  };
}

function postgresDb(store: PostgresStore): Db {
  return {
    async exec(sql, params = []) {
      return (await store.pool.query(sql, params)).rows;
    },
    close: () => store.close(),
  };
}

async function timed(db: Db, sql: string): Promise<{ ms: number; rows: number }> {
  const t = process.hrtime.bigint();
  const rows = await db.exec(sql, [PLAN]);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, rows: rows.length };
}

async function planOf(db: Db, kind: "sqlite" | "postgres"): Promise<string> {
  const sql = "SELECT * FROM v_plan_changes WHERE id = $1";
  if (kind === "sqlite")
    return (await db.exec(`EXPLAIN QUERY PLAN ${sql}`, [PLAN]))
      .map((r) => (r as { detail: string }).detail)
      .join("\n");
  return (await db.exec(`EXPLAIN ${sql}`, [PLAN]))
    .map((r) => (r as Record<string, string>)["QUERY PLAN"])
    .join("\n");
}

async function main(): Promise<number> {
  const report = new Report("bench:changes");
  const sim = await startSimulator({ port: 0, plans: 200, companies: 1 });
  const bases = sim.state.plansOf(sim.companies[0]?.id ?? 0) as Json[];
  await sim.close();
  const alone = history(bases, 0);
  const among = history(bases, OTHERS);
  console.log(
    `one plan of ${VERSIONS} versions, alone and among ${fmt(OTHERS)} plans of 3 versions (${fmt(among.versions.length)} versions)\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-changes-"));
  const pgs = new BenchDatabases();
  try {
    for (const kind of ["sqlite", "postgres"] as const) {
      const open = async (name: string): Promise<Db> => {
        if (kind === "sqlite") return sqliteDb(await openSqliteStore(join(dir, `${name}.db`)));
        const target = databaseTarget(await pgs.create());
        if (target.dialect !== "postgres") throw new Error("not a PostgreSQL URL");
        return postgresDb(await openPostgresStore(target));
      };
      const small = await open("alone");
      const big = await open("among");
      try {
        await fill(small, alone);
        await fill(big, among);
        if (kind === "postgres") for (const db of [small, big]) await db.exec("ANALYZE");
        const read = "SELECT raw_json FROM v_plan_versions WHERE id = $1 ORDER BY valid_from";
        const log = "SELECT * FROM v_plan_changes WHERE id = $1 ORDER BY changed_at, path, kind";
        const [base, logAlone, logAmong] = await bestInTurn(
          ROUNDS,
          [() => timed(big, read), () => timed(small, log), () => timed(big, log)],
          (r) => r.ms,
        );
        const b = base?.best;
        const a = logAlone?.best;
        const m = logAmong?.best;
        if (!b || !a || !m) throw new Error("no rounds");
        report.figure(`${kind}: ${VERSIONS} versions read as text`, `${fmt(b.ms, 2)} ms (${b.rows} rows)`);
        report.figure(`${kind}: change log, plan alone`, `${fmt(a.ms, 2)} ms (${a.rows} rows)`);
        report.figure(`${kind}: change log, among others`, `${fmt(m.ms, 2)} ms (${m.rows} rows)`);
        report.check(
          `${kind}: same rows alone and among others`,
          a.rows === m.rows && a.rows > VERSIONS,
          `${m.rows} rows`,
        );
        report.target(`${kind}: among others / alone`, m.ms / a.ms, "at most", 1.5, (n) => `${fmt(n, 2)}x`);
        report.figure(`${kind}: change log / versions read`, `${fmt(m.ms / b.ms, 1)}x`);
        const plan = await planOf(big, kind);
        const indexed =
          /plan_versions_id_idx/.test(plan) && !/SCAN (n|v|p|q|w)\b|Seq Scan on plan_versions/.test(plan);
        report.check(
          `${kind}: query plan reads plan_versions_id_idx`,
          indexed,
          indexed ? "no scan of plan_versions" : plan,
        );
        console.log("");
      } finally {
        await small.close();
        await big.close();
      }
    }
  } finally {
    await pgs.dropAll();
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

process.exitCode = await main();
