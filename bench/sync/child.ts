/**
 * One side of bench:sync, in a process of its own (its peak RSS and its I/O counters are its
 * own). Forked by ../sync.bench.ts with one JSON argument; sends back one message.
 *   download: GET /api/plans whole, then JSON.parse (the no-change target's baseline)
 *   raw:      the raw pipeline into SQLite or PostgreSQL (./raw-sqlite.ts, ./raw-postgres.ts)
 *   sync:     tas-sync's full sync into an empty database, then a no-change re-sync
 *             (`dirty`: the list keeps bad elements; a re-sync first, then the measured one)
 */
import { readFileSync, statSync } from "node:fs";
import pg from "pg";
import { request } from "undici";
import { parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";
import { createClients } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import { syncCompany } from "../../src/sync/company.js";
import { cpuSince, mainThreadCpuMs, peakRssMb } from "../support.js";
import { rawPostgres } from "./raw-postgres.js";
import { rawSqlite } from "./raw-sqlite.js";

export interface ChildInput {
  mode: "download" | "raw" | "sync";
  baseUrl: string;
  token: string;
  companyId: number;
  /** A SQLite path or a postgres:// URL (raw, sync). */
  database?: string;
  /** Observe the schema of the records (sync); default: the config's default (on). */
  observe?: boolean;
  /**
   * sync: the list holds elements that are rejected every time (deletions held back, runs end
   * partial). The measured re-sync is the steady state: the third sync, after one re-sync that
   * meets the rejections a second time.
   */
  dirty?: boolean;
}

export interface ChildResult {
  /** Wall time of the side's main act: the download + parse, the raw pipeline, the full sync. */
  ms: number;
  /**
   * CPU time (user + system, every thread of the process) of the raw pipeline or the full sync:
   * what the side costs when no second core is free.
   */
  cpuMs?: number;
  /** sync only: of that, the main thread's (the one that holds the write lock); Linux only. */
  mainCpuMs?: number;
  plans: number;
  rssMb: number;
  /**
   * sync only: peak RSS once RSS_RESYNCS no-change re-syncs ran (rssMb: after the full sync and
   * the first): a daemon's steady state. (When the index was Maps of strings and objects, each
   * re-sync of 100k plans left ~30 MB in the old generation: 398 MB after ten.)
   */
  rssRepeatedMb?: number;
  /** Bytes of the database once written (SQLite file; PostgreSQL: the database's size). */
  dbBytes?: number;
  /** sync only: the write transaction of the full sync, and the no-change re-sync. */
  writeMs?: number;
  /** sync only: of the full sync's write lock, the time it waited for the worker thread's reading. */
  readerWaitMs?: number;
  resyncMs?: number;
  /** sync, observing: no-change re-syncs observing and not, in turn (OBSERVE_PAIRS of each). */
  pairedResyncMs?: { observing: number[]; not: number[] };
  resyncWriteMs?: number;
  /** sync only: what the process wrote during the full sync and the re-sync (/proc/self/io). */
  fullWriteBytes?: number;
  /**
   * Of those, bytes whose pages were dropped before reaching the disk (cancelled_write_bytes):
   * a file deleted before the kernel wrote it back, i.e. the spool of the plan list.
   */
  fullCancelledBytes?: number;
  resyncWriteBytes?: number;
  resyncWchar?: number;
  resyncUnchanged?: number;
  /** sync into PostgreSQL only: rows of plans the re-sync wrote (their xmin moved). */
  resyncPlanRowsWritten?: number;
}

/** Each plan row's xmin: the transaction that last wrote it. */
async function planXmins(url: string): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; x: string }>(
      "SELECT id::text AS id, xmin::text AS x FROM plans",
    );
    return new Map(rows.map((r) => [r.id, r.x]));
  } finally {
    await client.end();
  }
}

/**
 * The process's write counters: bytes sent to storage (counted when a page is dirtied), bytes
 * passed to write(), and dirtied bytes that never reached storage (their file deleted first).
 */
function ioCounters(): { writeBytes: number; wchar: number; cancelled: number } {
  const text = readFileSync("/proc/self/io", "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(text)?.[1] ?? NaN);
  return {
    writeBytes: field("write_bytes"),
    wchar: field("wchar"),
    cancelled: field("cancelled_write_bytes"),
  };
}

/**
 * The short sides (download + parse, the no-change re-sync: about a second) run this many times
 * in each process, the fastest counted: on a loaded machine one run of a second varies by a
 * third, and best of three rounds was not enough to compare two of them (observing / not).
 */
const SHORT_REPEATS = 3;
/** No-change re-syncs one process runs before its peak RSS is read again (a daemon's life). */
const RSS_RESYNCS = 8;
/**
 * Then pairs of no-change re-syncs, observing and not, in turn in the same process and database
 * (what observing costs a re-sync, a few percent: between processes, runs of a second vary more).
 */
const OBSERVE_PAIRS = 4;

async function download(input: ChildInput): Promise<ChildResult> {
  let best = Number.POSITIVE_INFINITY;
  let plans = 0;
  for (let i = 0; i < SHORT_REPEATS; i++) {
    const t0 = performance.now();
    const res = await request(`${input.baseUrl}/api/plans`, {
      headers: { authorization: `Bearer ${input.token}` },
    });
    const list = JSON.parse(await res.body.text()) as unknown[];
    best = Math.min(best, performance.now() - t0);
    plans = list.length;
  }
  return { ms: best, plans, rssMb: peakRssMb() };
}

async function sync(input: ChildInput): Promise<ChildResult> {
  const database = input.database as string;
  const logger = createLogger({ level: "warn", pretty: false });
  const cfg = parseConfig(
    {
      baseUrl: input.baseUrl,
      database,
      auth: { token: input.token },
      companies: [{ id: input.companyId, reportIds: [] }],
      http: { maxRequestsPerSecond: 1000, timeoutMs: 120_000 },
      ...(input.observe === undefined || input.observe === null
        ? {}
        : { schema: { observe: input.observe } }),
    },
    "(bench)",
  );
  const store = await openStore(cfg.database);
  const clients = createClients(cfg, logger);
  try {
    const run = (schema = cfg.schema) =>
      syncCompany(
        {
          store,
          client: clients.clientFor(input.companyId),
          logger,
          readAheadBytes: cfg.sync.readAheadBytes,
          schema,
        },
        { companyId: input.companyId, reportIds: [], trigger: "bench" },
      );
    const ioStart = ioCounters();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const t0 = performance.now();
    const full = await run();
    const ms = performance.now() - t0;
    const cpuMs = cpuSince(cpu0);
    const main1 = mainThreadCpuMs();
    const expected = input.dirty ? "partial" : "succeeded";
    if (full.status !== expected) throw new Error(`full sync ${full.status}: ${full.errors.join("; ")}`);
    if (input.dirty) {
      const second = await run();
      if (second.status !== expected || second.counts.rejected === 0)
        throw new Error(
          `re-sync ${second.status}, ${second.counts.rejected} rejected: ${second.errors.join("; ")}`,
        );
    }
    const postgres = database.startsWith("postgres");
    const xmins = postgres ? await planXmins(database) : null;
    const io0 = ioCounters();
    // The fastest of the re-syncs, and the most any of them wrote.
    let again = full;
    let resyncMs = Number.POSITIVE_INFINITY;
    let resyncWriteMs = 0;
    const most = { writeBytes: 0, wchar: 0 };
    let rssMb = 0;
    for (let i = 0; i < SHORT_REPEATS; i++) {
      const before = ioCounters();
      const t1 = performance.now();
      again = await run();
      const took = performance.now() - t1;
      const after = ioCounters();
      if (
        again.status !== expected ||
        again.counts.inserted + again.counts.updated + again.counts.deleted > 0
      )
        throw new Error(`re-sync ${again.status}: ${again.errors.join("; ")}`);
      if (took < resyncMs) {
        resyncMs = took;
        resyncWriteMs = again.writeMs ?? 0;
      }
      most.writeBytes = Math.max(most.writeBytes, after.writeBytes - before.writeBytes);
      most.wchar = Math.max(most.wchar, after.wchar - before.wchar);
      if (i === 0) rssMb = peakRssMb();
    }
    for (let i = SHORT_REPEATS; i < RSS_RESYNCS; i++) {
      const more = await run();
      if (more.status !== expected) throw new Error(`re-sync ${more.status}: ${more.errors.join("; ")}`);
    }
    const rssRepeatedMb = peakRssMb();
    const paired = { observing: [] as number[], not: [] as number[] };
    if (!postgres && !input.dirty && cfg.schema.observe) {
      const off = { ...cfg.schema, observe: false };
      for (let i = 0; i < OBSERVE_PAIRS * 2; i++) {
        // Each side first every other pair: a drift of the machine's speed falls on both.
        const observing = i % 2 === Math.floor(i / 2) % 2;
        const t = performance.now();
        const r = await run(observing ? cfg.schema : off);
        if (r.status !== expected || r.counts.inserted + r.counts.updated + r.counts.deleted > 0)
          throw new Error(`re-sync ${r.status}: ${r.errors.join("; ")}`);
        paired[observing ? "observing" : "not"].push(performance.now() - t);
      }
    }
    let written: number | undefined;
    if (xmins) {
      const after = await planXmins(database);
      written =
        [...after].filter(([id, x]) => xmins.get(id) !== x).length + Math.max(0, xmins.size - after.size);
    }
    return {
      ms,
      cpuMs,
      ...(main0 === null || main1 === null ? {} : { mainCpuMs: main1 - main0 }),
      plans: full.counts.inserted,
      rssMb,
      rssRepeatedMb,
      ...(paired.not.length ? { pairedResyncMs: paired } : {}),
      writeMs: full.writeMs ?? 0,
      // Absent when no worker read the list (the bench's list is far past the read-ahead).
      ...(full.readerWaitMs === null ? {} : { readerWaitMs: full.readerWaitMs }),
      resyncMs,
      resyncWriteMs,
      fullWriteBytes: io0.writeBytes - ioStart.writeBytes,
      fullCancelledBytes: io0.cancelled - ioStart.cancelled,
      resyncWriteBytes: most.writeBytes,
      resyncWchar: most.wchar,
      resyncUnchanged: again.counts.unchanged,
      ...(written === undefined ? {} : { resyncPlanRowsWritten: written }),
    };
  } finally {
    await clients.close();
    await store.close();
  }
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? "") as ChildInput;
  let result: ChildResult;
  if (input.mode === "download") result = await download(input);
  else if (input.mode === "sync") result = await sync(input);
  else if (input.database?.startsWith("postgres")) result = await rawPostgres(input);
  else result = await rawSqlite(input);
  if (input.database && !input.database.startsWith("postgres"))
    result.dbBytes = statSync(input.database).size;
  process.send?.(result);
}

main().catch((err: unknown) => {
  console.error(
    `bench:sync (child) failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  process.exitCode = 1;
});
