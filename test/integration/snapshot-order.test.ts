/**
 * Two real `tas-sync sync` processes of one company whose snapshots cross: A asks first and is
 * answered late (the simulator takes the list when the request arrives, then holds it), A
 * stalls (SIGSTOP) past its lease, B takes the company over, fetches the newer list and
 * applies it; A wakes up and tries to apply its older snapshot: discarded (superseded), the
 * mirror keeps B's content, and no history interval inverts or overlaps. On both stores.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt, startCli } from "../support/built-cli.js";
import { until } from "../support/daemon.js";
import { storeKinds } from "../support/stores.js";

let sim: RunningSimulator;
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, companies: 1, plans: 5, reports: 0 });
  dir = mkdtempSync(join(tmpdir(), "tas-order-"));
}, 180_000);
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${sim.baseUrl}/__admin/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe.each(storeKinds())("snapshots of one company from two processes on $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("never lets an older snapshot that commits last roll the mirror back", async () => {
    const company = sim.companies[0];
    if (!company) throw new Error("no company");
    const database = await kind.fresh();
    const config = join(dir, `${kind.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: sim.baseUrl,
        database,
        logLevel: "warn",
        sync: { lease: "2s" },
        http: { timeoutMs: 60_000, maxAttempts: 1, maxRequestsPerSecond: 1000 },
        companies: [{ id: company.id, auth: { token: company.staticToken } }],
      }),
    );
    expect((await cli(["sync", "--config", config])).code).toBe(0);
    const {
      planIds: [planId],
    } = (await (await admin("GET", `companies/${company.id}/plans`)).json()) as { planIds: number[] };

    // A asks first; the list it will get is the one of now (name "v0"), sent 6 s later.
    const plan = (await (await admin("GET", `companies/${company.id}/plans/${planId}`)).json()) as Record<
      string,
      unknown
    >;
    await admin("PUT", `companies/${company.id}/plans/${planId}`, { ...plan, plan_name: "v0" });
    await admin("PUT", "faults", { planListDelayOnceMs: 6000 });
    const a = startCli(["sync", "--config", config]);
    await until("A's request held by the simulator", async () => {
      const stats = (await (await admin("GET", "stats")).json()) as { held: number };
      return stats.held > 0 ? true : undefined;
    });
    // The service changes; A stalls past its 2 s lease; B takes over and applies the newer list.
    await admin("PUT", `companies/${company.id}/plans/${planId}`, { ...plan, plan_name: "v1" });
    a.child.kill("SIGSTOP");
    // A renews no more: B may take over once the lease A last wrote has run out.
    const store0 = await kind.open(database);
    try {
      await until("A's lease to run out", async () => {
        const [lease] = await kind.rows<{ expires: string | null }>(
          store0,
          "SELECT lease_expires_at AS expires FROM sync_state WHERE company_id = ?",
          company.id,
        );
        return lease?.expires && Date.parse(lease.expires) < Date.now() ? true : undefined;
      });
    } finally {
      await store0.close();
    }
    const b = await cli(["sync", "--config", config]);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(new RegExp(`^company ${company.id}: succeeded`));
    a.child.kill("SIGCONT");
    const aRun = await a.done;
    expect(aRun.code).toBe(0);
    expect(aRun.stdout).toMatch(new RegExp(`^company ${company.id}: superseded`));
    expect(aRun.stdout).toContain("was applied first; this one was discarded");

    const store = await kind.open(database);
    try {
      const q = (sql: string, ...p: unknown[]) => kind.rows(store, sql, ...p);
      expect(await q("SELECT plan_name FROM plans WHERE id = ?", planId)).toEqual([{ plan_name: "v1" }]);
      const statuses = (await q("SELECT status FROM sync_runs ORDER BY id")).map((r) => r.status);
      expect(statuses).toEqual(["succeeded", "superseded", "succeeded"]);
      // History: never valid_to before valid_from, at most one open version, no overlap.
      expect(await q("SELECT id FROM plan_versions WHERE valid_to < valid_from")).toEqual([]);
      expect(
        await q("SELECT id FROM plan_versions WHERE valid_to IS NULL GROUP BY id HAVING count(*) > 1"),
      ).toEqual([]);
      expect(
        await q(`SELECT a.version_id FROM plan_versions a JOIN plan_versions b ON a.id = b.id AND a.version_id < b.version_id
           WHERE a.valid_to IS NULL OR a.valid_to > b.valid_from`),
      ).toEqual([]);
      const versions = await q(
        "SELECT raw_json FROM v_plan_versions WHERE id = ? ORDER BY valid_from",
        planId,
      );
      expect(
        versions.map((v) => (JSON.parse(String(v.raw_json)) as { plan_name: string }).plan_name).at(-1),
      ).toBe("v1");
    } finally {
      await store.close();
    }
  }, 60_000);
});
