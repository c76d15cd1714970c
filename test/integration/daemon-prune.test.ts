/** The daemon's prune: one log line and the metrics per prune, and a stop that waits for it. */
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { Pruner } from "../../src/daemon/pruner.js";
import { createLogger } from "../../src/log.js";
import { Metrics } from "../../src/metrics.js";
import type { Store } from "../../src/store/port.js";
import { type Sql, sqlOn, storeKind } from "../support/stores.js";

// The pruner's wiring does not depend on the store (test/integration/retention.test.ts covers both).
const kind = storeKind("sqlite");
const retention = configSchema({}).parse({
  baseUrl: "http://127.0.0.1:1",
  auth: { token: "t" },
  companies: [{ id: 1 }],
}).retention;

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n")) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger({ level: "info", pretty: false, destination }), lines };
}

describe("the daemon's pruner", () => {
  let store: Store;
  let sql: Sql;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh());
    sql = sqlOn(kind, store);
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    await kind.cleanup();
  });

  it("prunes on its schedule, says what it removed in one line and counts it in the metrics", async () => {
    const old = new Date(Date.now() - 200 * 86_400_000).toISOString();
    for (let i = 0; i < 5; i++)
      await sql.rows(
        "INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status) VALUES (1, 's', ?, ?, 'succeeded') RETURNING id",
        old,
        old,
      );
    const { logger, lines } = memoryLogger();
    const metrics = new Metrics({ freshness: async () => [], queueCounts: async () => [] });
    const pruner = new Pruner({ retention, store, logger, metrics, firstAfterMs: 0, everyMs: 3_600_000 });
    pruner.start();
    await expect.poll(() => lines.filter((l) => String(l.msg).startsWith("pruned")).length).toBe(1);
    await pruner.stop();
    const line = lines.find((l) => String(l.msg).startsWith("pruned")) as Record<string, unknown>;
    expect(line.msg).toBe("pruned sync_runs 4");
    expect(line.removed).toMatchObject({ sync_runs: 4, sync_errors: 0 });
    expect(Number(await sql.scalar("SELECT count(*) FROM sync_runs"))).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tas_sync_pruned_rows_total\{table="sync_runs"\} 4/);
    expect(text).toMatch(/tas_sync_pruned_rows_total\{table="rejected_records"\} 0/);
    expect(text).toMatch(/tas_sync_last_prune_timestamp_seconds \d/);
  });

  it("stops between batches when the daemon stops", async () => {
    const old = new Date(Date.now() - 200 * 86_400_000).toISOString();
    for (let i = 0; i < 300; i++)
      await sql.rows(
        "INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status) VALUES (1, 's', ?, ?, 'succeeded') RETURNING id",
        old,
        old,
      );
    const { logger, lines } = memoryLogger();
    const pruner = new Pruner({ retention, store, logger, metrics: null, firstAfterMs: 3_600_000 });
    pruner.start();
    const running = pruner.run();
    await pruner.stop();
    await running;
    const line = lines.find((l) => String(l.msg).startsWith("pruned")) as Record<string, unknown>;
    // The stop came before the first batch: nothing removed, and the line says it stopped.
    expect(line).toMatchObject({ stopped: true, msg: "pruned nothing (stopped: the daemon is stopping)" });
    expect(Number(await sql.scalar("SELECT count(*) FROM sync_runs"))).toBe(300);
    expect(lines.filter((l) => String(l.msg).startsWith("pruned"))).toHaveLength(1);
  });
});
