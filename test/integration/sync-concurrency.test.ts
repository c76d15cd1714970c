/**
 * A sync holds no database lock while it talks to the service: another connection in the
 * same process (the daemon's push worker) can write meanwhile. SQLite's busy wait blocks the
 * whole event loop, so a lock held across the download would freeze that process. SQLite
 * only: a PostgreSQL client waits for a lock without blocking its process.
 */
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeEach, expect, it } from "vitest";
import { until } from "../support/daemon.js";
import { storeKind } from "../support/stores.js";
import { FIRST, type Harness, startHarness } from "./sync-harness.js";

const kind = storeKind("sqlite");
let h: Harness;
beforeEach(async () => {
  // Every answer of the service takes 400 ms: the download is slow.
  h = await startHarness(kind, { faults: { latencyMs: 400 } });
});
afterEach(() => h.close());
afterAll(() => kind.cleanup());

it("lets another connection write at once while a sync is downloading", async () => {
  // No busy wait: a write that meets the sync's lock fails at once (SQLITE_BUSY) instead.
  const other = new Database(h.database, { timeout: 0 });
  try {
    const syncing = h.sync(FIRST, { reportIds: [] });
    // The sync is downloading: the service holds its plan-list request.
    await until("the sync's request held by the service", () =>
      h.sim.state.stats.held > 0 ? true : undefined,
    );
    // A push-worker-style write on its own connection, in this process.
    other.exec("CREATE TABLE IF NOT EXISTS probe (x INTEGER); INSERT INTO probe VALUES (1)");
    expect(other.prepare("SELECT count(*) FROM probe").pluck().get()).toBe(1);
    const result = await syncing;
    expect(result.status).toBe("succeeded");
    expect(await h.scalar("SELECT count(*) FROM plans")).toBe(6);
  } finally {
    other.close();
  }
});
