/**
 * A one-shot sync killed with kill -9 leaves a run marked running and a spool file: the next
 * command that writes (here `migrate`) marks the run failed, saying why, and removes the spool.
 * The plan list comes from a server that sends part of it and then stalls; with no read-ahead
 * (sync.readAheadMiB 0) every new plan goes to the spool. On both stores.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt, startCli } from "../support/built-cli.js";
import { until } from "../support/daemon.js";
import { type HostileServer, startHostileServer } from "../support/hostile-server.js";
import { storeKinds } from "../support/stores.js";

let sim: RunningSimulator;
let stalling: HostileServer;
let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, companies: 1, plans: 5, reports: 0 });
  // The simulator's list, of which the first two plans are sent; then nothing more, ever.
  const company = sim.companies[0];
  const list = (await (
    await fetch(`${sim.baseUrl}/api/plans`, { headers: { authorization: `Bearer ${company?.staticToken}` } })
  ).json()) as unknown[];
  stalling = await startHostileServer();
  stalling.setHandler((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write(
      `[${list
        .slice(0, 2)
        .map((p) => JSON.stringify(p))
        .join(",")},`,
    );
  });
  dir = mkdtempSync(join(tmpdir(), "tas-dead-run-"));
}, 180_000);
afterAll(async () => {
  await stalling?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(storeKinds())("a sync killed with kill -9, on $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("is marked failed with its reason by the next command that writes, and its spool is removed", async () => {
    const company = sim.companies[0];
    if (!company) throw new Error("no company");
    const database = await kind.fresh({ migrated: true });
    const config = join(dir, `${kind.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: stalling.baseUrl,
        database,
        logLevel: "warn",
        sync: { readAheadMiB: 0 },
        http: { timeoutMs: 60_000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
        companies: [{ id: company.id, auth: { token: company.staticToken } }],
      }),
    );
    const sync = startCli(["sync", "--config", config]);
    const pid = sync.child.pid as number;
    const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`tas-spool-${pid}-`));
    const store = await kind.open(database);
    try {
      const status = async () =>
        (
          await kind.rows<{ status: string; error: string | null }>(
            store,
            "SELECT status, error FROM sync_runs",
          )
        )[0];
      // The run is recorded before the list is requested, the spool opened with the first new
      // plan: wait for both.
      await until("the run to start and its spool to open", async () =>
        (await status())?.status === "running" && spools().length === 1 ? true : undefined,
      );
      sync.child.kill("SIGKILL");
      expect((await sync.done).signal).toBe("SIGKILL");
      expect((await status())?.status).toBe("running");

      const migrate = await cli(["migrate", "--config", config, "--log-level", "warn"]);
      expect(migrate.code).toBe(0);
      expect(await status()).toEqual({
        status: "failed",
        error: expect.stringMatching(new RegExp(`abandoned: its process .*:${pid} is gone`)),
      });
      expect(migrate.stderr).toContain("marked failed");
      expect(spools()).toEqual([]);
      // Removing the spool left the database file alone (a PostgreSQL database just answered).
      if (kind.name === "sqlite") expect(existsSync(database)).toBe(true);
    } finally {
      await store.close();
    }
  }, 60_000);
});
