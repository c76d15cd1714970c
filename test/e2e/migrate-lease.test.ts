/**
 * `migrate` reaps dead runs like every command that writes, and tells a dead run from a live
 * one by the configured `sync.lease` (a run beats every sixth of it): a run on another host
 * that is silent for ten minutes is alive under a 30-minute lease, dead under the default.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-migrate-lease-"));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("keeps a remote run that is silent for less than three configured leases, and reaps it by default", async () => {
  const database = join(dir, "t.db");
  const store = openSqliteStore(database);
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
  const runId = await store.runs.start({
    companyId: 1,
    trigger: "schedule",
    startedAt: tenMinutesAgo,
    owner: { host: "another-host", pid: 4242 },
  });
  await store.runs.heartbeat(runId, tenMinutesAgo);
  const status = () =>
    store.sqlite.prepare("SELECT status FROM sync_runs WHERE id = ?").pluck().get(runId) as string;
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/R",
      database,
      auth: { token: "t" },
      sync: { lease: "30m" },
      companies: [{ id: 1 }],
    }),
  );
  try {
    expect((await cli(["migrate", "--config", config])).code).toBe(0);
    expect(status()).toBe("running");
    const byDefault = await cli(["migrate", "--db", database]);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stderr).toContain("marked failed");
    expect(status()).toBe("failed");
  } finally {
    await store.close();
  }
}, 60_000);
