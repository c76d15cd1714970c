/** Runs of dead processes are marked failed with a reason; live ones are left alone. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Owner } from "../../src/store/port-runs.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { reapDeadRuns, STALE_MS } from "../../src/sync/reap.js";

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-runs-"));
  store = openSqliteStore(join(dir, "t.db"));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been reaped), so no process has it now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

const me: Owner = { host: hostname(), pid: process.pid };
const now = new Date("2026-01-01T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const status = (id: number) =>
  store.sqlite.prepare("SELECT status, error FROM sync_runs WHERE id = ?").get(id);

describe("reapDeadRuns", () => {
  it("fails a run whose process on this host is gone, at once, saying so", async () => {
    const pid = await deadPid();
    const id = await store.runs.start({
      companyId: 1,
      trigger: "cli",
      startedAt: ago(1000),
      owner: { host: me.host, pid },
    });
    const reaped = await reapDeadRuns(store.runs, me, now);
    expect(reaped).toEqual([
      { runId: id, companyId: 1, reason: `abandoned: its process ${me.host}:${pid} is gone` },
    ]);
    expect(status(id)).toEqual({
      status: "failed",
      error: `abandoned: its process ${me.host}:${pid} is gone`,
    });
  });

  it("leaves a run of a live process alone, and of another host while it keeps beating", async () => {
    const live = await store.runs.start({
      companyId: 1,
      trigger: "cli",
      startedAt: ago(STALE_MS * 2),
      owner: { host: me.host, pid: process.ppid },
    });
    await store.runs.heartbeat(live, ago(1000));
    const remote = await store.runs.start({
      companyId: 2,
      trigger: "schedule",
      startedAt: ago(STALE_MS * 2),
      owner: { host: "other-host", pid: 4242 },
    });
    await store.runs.heartbeat(remote, ago(STALE_MS / 2));
    expect(await reapDeadRuns(store.runs, me, now)).toEqual([]);
    expect(status(live)).toEqual({ status: "running", error: null });
    expect(status(remote)).toEqual({ status: "running", error: null });
  });

  it("fails a run that has not beaten for longer than STALE_MS, whatever its host", async () => {
    const remote = await store.runs.start({
      companyId: 2,
      trigger: "schedule",
      startedAt: ago(STALE_MS * 3),
      owner: { host: "other-host", pid: 4242 },
    });
    await store.runs.heartbeat(remote, ago(STALE_MS + 1000));
    const [r] = await reapDeadRuns(store.runs, me, now);
    expect(r?.runId).toBe(remote);
    expect(r?.reason).toMatch(/other-host:4242 has not been heard from for \d+s/);
  });

  it("fails an ownerless run (recorded before owners were) only after an hour", async () => {
    const insert = store.sqlite.prepare(
      "INSERT INTO sync_runs (company_id, trigger, started_at, status) VALUES (?, 'schedule', ?, 'running')",
    );
    const old = Number(insert.run(1, ago(2 * 3_600_000)).lastInsertRowid);
    const young = Number(insert.run(2, ago(60_000)).lastInsertRowid);
    expect((await reapDeadRuns(store.runs, me, now)).map((r) => r.runId)).toEqual([old]);
    expect(status(young)).toEqual({ status: "running", error: null });
  });
});
