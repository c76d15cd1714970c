/**
 * One measurement of bench:seed in a process of its own, so that each peak RSS is its alone:
 *   idle                  load what a dry run loads, read nothing (node's own footprint)
 *   whole PATH            read the file whole and decode it (what any reader that holds the
 *                         file pays before it parses a row: the floor of the former reader)
 *   check PATH            what `push --dry-run` does: validate every row, show the first 20
 *   record PATH DB PREFIX validate, record in a SQLite outbox, queue the ready rows on Redis
 * Prints one JSON line: { ms, rssMb, valid, problems }.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseConfig } from "../src/config/index.js";
import { firstRows, loadSeed, recordSeed } from "../src/push/submit.js";

/** As bench/support.ts's, which this child does not import: it loads what push loads, no more. */
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

const [mode, path, db, prefix] = process.argv.slice(2);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

function config(database = ":memory:", queuePrefix = "unused") {
  return parseConfig(
    {
      baseUrl: "http://127.0.0.1:9/R",
      auth: { token: "bench" },
      companies: [{ id: 5251 }],
      database,
      redisUrl: REDIS_URL,
      queuePrefix,
      logLevel: "warn",
    },
    "bench",
    {},
  );
}

interface Figures {
  valid?: number;
  problems?: number;
  recorded?: number;
  queued?: number;
  /** Peak RSS once checked, and once recorded (record mode). */
  checkedMb?: number;
  recordedMb?: number;
}

async function main(): Promise<Figures> {
  if (mode === "idle") return {};
  if (!path) throw new Error("no seed file given");
  if (mode === "whole") {
    const text = readFileSync(path).toString("utf8");
    return { valid: text.length > 0 ? 1 : 0 };
  }
  if (mode === "check") {
    const seed = await loadSeed(config(), path);
    firstRows(seed, 20);
    return { valid: seed.validCount, problems: seed.problems.length };
  }
  if (mode === "record" && db && prefix) {
    // In the order of `tas-sync push` (commands/push.ts): the file is checked first, with what a
    // dry run loads; then what push loads past a dry run (commands/push-submit.ts) is loaded,
    // the store and the queue opened, the rows recorded and the ready ones queued.
    const cfg = config(db, prefix);
    const seed = await loadSeed(cfg, path);
    const checkedMb = peakRssMb();
    const [{ createLogger }, { PushReconciler }, { PushQueue }, { createClients }, { openSqliteStore }] =
      await Promise.all([
        import("../src/log.js"),
        import("../src/push/reconcile.js"),
        import("../src/queue/push.js"),
        import("../src/runtime.js"),
        import("../src/store/sqlite/index.js"),
      ]);
    const logger = createLogger({ level: "warn" });
    const store = openSqliteStore(db);
    const clients = createClients(cfg, logger);
    const queue = new PushQueue({ cfg, outbox: store.outbox, clients, logger });
    try {
      await queue.queue.waitUntilReady();
      const batchId = randomUUID();
      const recorded = await recordSeed(store.outbox, seed, batchId, new Date().toISOString());
      const recordedMb = peakRssMb();
      const { ready } = await new PushReconciler(store.outbox, queue, logger).requeue({
        filter: { batchId },
      });
      return {
        valid: seed.validCount,
        problems: seed.problems.length,
        recorded: recorded.recorded,
        queued: ready,
        checkedMb,
        recordedMb,
      };
    } finally {
      await queue.close();
      await clients.close();
      await store.close();
    }
  }
  throw new Error(`unknown mode ${mode}`);
}

const t0 = performance.now();
main().then(
  (r) => {
    console.log(JSON.stringify({ ms: performance.now() - t0, rssMb: peakRssMb(), ...r }));
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
