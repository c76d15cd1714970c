import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { failAbandonedRuns, startRun } from "../../src/store/runs.js";

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-runs-"));
  store = openStore(join(dir, "t.db"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("failAbandonedRuns", () => {
  it("fails runs left running for over an hour, and leaves younger ones (maybe another process's) alone", () => {
    const now = new Date("2026-01-01T12:00:00.000Z");
    const old = startRun(store.sqlite, 1, "schedule", "2026-01-01T10:00:00.000Z");
    const young = startRun(store.sqlite, 2, "schedule", "2026-01-01T11:59:00.000Z");
    expect(failAbandonedRuns(store.sqlite, now)).toBe(1);
    const status = (id: number) =>
      store.sqlite.prepare("SELECT status, error FROM sync_runs WHERE id = ?").get(id);
    expect(status(old)).toEqual({
      status: "failed",
      error: "abandoned: the process ended before the run finished",
    });
    expect(status(young)).toEqual({ status: "running", error: null });
  });
});
