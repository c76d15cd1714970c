/**
 * bench:sync's PostgreSQL syncs, in a process of their own so that its peak RSS is theirs
 * (not the SQLite phase's, which ran before in the parent). Forked by ./sync-postgres.ts with
 * one JSON argument; sends back one message: the full sync, the re-sync and the peak RSS.
 */
import { parseConfig } from "../src/config/index.js";
import { createLogger } from "../src/log.js";
import { createClients } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import { syncCompany } from "../src/sync/company.js";
import { peakRssMb } from "./support.js";

export interface ChildInput {
  baseUrl: string;
  token: string;
  companyId: number;
  databaseUrl: string;
}

export interface SyncFigures {
  count: number;
  ms: number;
}

export interface ChildResult {
  full: SyncFigures;
  again: SyncFigures;
  rssMb: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? "") as ChildInput;
  const logger = createLogger({ level: "warn", pretty: false });
  const cfg = parseConfig(
    {
      baseUrl: input.baseUrl,
      database: input.databaseUrl,
      auth: { token: input.token },
      companies: [{ id: input.companyId, reportIds: [] }],
      http: { maxRequestsPerSecond: 1000, timeoutMs: 120_000 },
    },
    "(bench)",
  );
  const store = await openStore(cfg.database);
  const clients = createClients(cfg, logger);
  try {
    const sync = () =>
      syncCompany(
        { store, client: clients.clientFor(input.companyId), logger },
        { companyId: input.companyId, reportIds: [], trigger: "bench" },
      );
    const full = await sync();
    if (full.status !== "succeeded") throw new Error(`full sync ${full.status}: ${full.errors.join("; ")}`);
    const again = await sync();
    if (again.status !== "succeeded") throw new Error(`re-sync ${again.status}: ${again.errors.join("; ")}`);
    const result: ChildResult = {
      full: { count: full.counts.inserted, ms: full.durationMs },
      again: { count: again.counts.unchanged, ms: again.durationMs },
      rssMb: peakRssMb(),
    };
    process.send?.(result);
  } finally {
    await clients.close();
    await store.close();
  }
}

main().catch((err: unknown) => {
  console.error(`bench:sync (postgres child) failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
