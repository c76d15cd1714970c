/**
 * A sync holds no database lock while it talks to the service: another connection in the
 * same process (the daemon's push worker) can write meanwhile. SQLite's busy wait blocks the
 * whole event loop, so a lock held across the download would freeze that process.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FIRST, type Harness, scalar, startHarness } from "./sync-harness.js";

let h: Harness;
beforeEach(async () => {
  // Every answer of the service takes 400 ms: the download is slow.
  h = await startHarness({ faults: { latencyMs: 400 } });
});
afterEach(() => h.close());

it("lets another connection write at once while a sync is downloading", async () => {
  const other = new Database(join(h.dir, "tas.db"), { timeout: 1500 });
  try {
    const syncing = h.sync(FIRST, { reportIds: [] });
    await new Promise((r) => setTimeout(r, 150));
    const t0 = performance.now();
    // A push-worker-style write on its own connection, in this process.
    other.exec("CREATE TABLE IF NOT EXISTS probe (x INTEGER); INSERT INTO probe VALUES (1)");
    const waited = performance.now() - t0;
    expect(waited).toBeLessThan(200);
    const result = await syncing;
    expect(result.status).toBe("succeeded");
    expect(scalar(h.store.sqlite, "SELECT count(*) FROM plans")).toBe(6);
  } finally {
    other.close();
  }
});
