/**
 * npm run bench:sync — 100,000 plans (a third mobile) for one company from the simulator.
 * Prints plans/s of a full sync and of a no-change re-sync, peak RSS, and as the baseline a
 * raw better-sqlite3 prepared-statement loop inserting the same rows in one transaction.
 * With `--store postgres` (or BENCH_STORE=postgres) the same two syncs then run into PostgreSQL
 * against a COPY baseline, SQLite's figures beside (./sync-postgres.ts).
 * Then 8 companies whose plan lists are slow to start: one sync of all 8 at sync.concurrency 8
 * against the sum of syncing each alone (./sync-concurrent.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { parseConfig } from "../src/config/index.js";
import { createLogger } from "../src/log.js";
import { normalizePlan } from "../src/normalize/index.js";
import { createClients } from "../src/runtime.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { syncCompany } from "../src/sync/company.js";
import { contentHash } from "../src/sync/record.js";
import { planSchema } from "../src/wire/schemas.js";
import { baselineOps, runBaseline } from "./raw-baseline.js";
import { fmt, peakRssMb, spawnSimulator, verdict } from "./support.js";
import { concurrentPhase } from "./sync-concurrent.js";
import { postgresPhase } from "./sync-postgres.js";

const PLANS = Number(process.env.BENCH_PLANS ?? 100_000);

/** `--store postgres` / `--store=postgres`, else BENCH_STORE; default sqlite (SQLite only). */
function storeOption(argv: readonly string[]): "sqlite" | "postgres" {
  const i = argv.findIndex((a) => a === "--store" || a.startsWith("--store="));
  const arg = i < 0 ? undefined : argv[i]?.includes("=") ? argv[i]?.slice(8) : argv[i + 1];
  const value = arg ?? process.env.BENCH_STORE ?? "sqlite";
  if (value !== "sqlite" && value !== "postgres")
    throw new Error(`${arg === undefined ? "BENCH_STORE" : "--store"} is "${value}": say sqlite or postgres`);
  return value;
}

async function main(): Promise<void> {
  await throughputPhases(storeOption(process.argv.slice(2)));
  // After the first simulator is gone: its own simulator, so the plan-list delay reaches nothing else.
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-sync-"));
  try {
    await concurrentPhase(dir, createLogger({ level: "warn", pretty: false }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One company's full sync, no-change re-sync and peak RSS, against the raw insert loop; then,
 * for postgres, the same into PostgreSQL against COPY.
 */
async function throughputPhases(store: "sqlite" | "postgres"): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-sync-"));
  const sim = await spawnSimulator(["--companies", "1", "--plans", String(PLANS), "--reports", "3"]);
  const company = sim.companies[0];
  if (!company) throw new Error("simulator reported no company");
  const logger = createLogger({ level: "warn", pretty: false });
  const cfg = parseConfig(
    {
      baseUrl: sim.baseUrl,
      database: join(dir, "bench.db"),
      auth: { token: company.staticToken },
      // Plans only: the figures are plans/s.
      companies: [{ id: company.id, reportIds: [] }],
      http: { maxRequestsPerSecond: 1000, timeoutMs: 120_000 },
    },
    "(bench)",
  );
  try {
    console.log(`bench:sync — ${fmt(PLANS)} plans for company ${company.id} (simulator in a child process)`);
    // Warm the simulator's serialization cache so neither side pays for it.
    const warm = await request(`${sim.baseUrl}/api/plans`, {
      headers: { authorization: `Bearer ${company.staticToken}` },
    });
    const bodyBytes = (await warm.body.arrayBuffer()).byteLength;
    console.log(`response body: ${fmt(bodyBytes / 1024 / 1024, 1)} MiB`);

    const sqlite = openSqliteStore(cfg.database.display);
    const clients = createClients(cfg, logger);
    const sync = () =>
      syncCompany(
        { store: sqlite, client: clients.clientFor(company.id), logger },
        { companyId: company.id, reportIds: [], trigger: "bench" },
      );
    const full = await sync();
    if (full.status === "failed") throw new Error(`full sync failed: ${full.errors.join("; ")}`);
    const fullRate = full.counts.inserted / (full.durationMs / 1000);
    const again = await sync();
    const resyncRate = again.counts.unchanged / (again.durationMs / 1000);
    const rss = peakRssMb();
    await clients.close();
    await sqlite.close();

    // Baseline: the same rows, normalized in advance, inserted by a plain prepared-statement loop.
    const rows = await preparedRows(sim.baseUrl, company.staticToken);
    const base = openSqliteStore(join(dir, "baseline.db"));
    const { tables, ops } = baselineOps(rows, new Date().toISOString());
    const baseMs = runBaseline(base.sqlite, tables, ops);
    await base.close();
    const baseRate = rows.length / (baseMs / 1000);

    const ratioFull = fullRate / baseRate;
    const ratioResync = resyncRate / fullRate;
    console.log("");
    console.log(
      `full sync           ${fmt(full.counts.inserted)} plans in ${fmt(full.durationMs)} ms = ${fmt(fullRate)} plans/s`,
    );
    console.log(
      `no-change re-sync   ${fmt(again.counts.unchanged)} plans in ${fmt(again.durationMs)} ms = ${fmt(resyncRate)} plans/s`,
    );
    console.log(
      `baseline (raw insert loop, same rows, one transaction) ${fmt(rows.length)} plans in ${fmt(baseMs)} ms = ${fmt(baseRate)} plans/s`,
    );
    console.log(`peak RSS during the syncs: ${fmt(rss)} MB`);
    console.log("");
    console.log(
      `full sync / baseline      = ${fmt(ratioFull * 100, 1)}%  (target >= 40%)  ${verdict(ratioFull >= 0.4)}`,
    );
    console.log(
      `re-sync / full sync       = ${fmt(ratioResync, 2)}x  (target >= 3x)    ${verdict(ratioResync >= 3)}`,
    );
    console.log(`peak RSS                  = ${fmt(rss)} MB (target < 600 MB) ${verdict(rss < 600)}`);
    if (store === "postgres")
      await postgresPhase({ baseUrl: sim.baseUrl, companyId: company.id, token: company.staticToken }, rows, {
        fullRate,
        resyncRate,
        baseRate,
        rssMb: rss,
      });
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fetch and normalize every plan up front (not timed): the baseline's input. */
async function preparedRows(baseUrl: string, token: string) {
  const res = await request(`${baseUrl}/api/plans`, { headers: { authorization: `Bearer ${token}` } });
  const list = (await res.body.json()) as unknown[];
  return list.map((item) => {
    const text = JSON.stringify(item);
    return { text, hash: contentHash(text), normalized: normalizePlan(planSchema.parse(item)) };
  });
}

main().catch((err: unknown) => {
  console.error(`bench:sync failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
