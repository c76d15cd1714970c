/**
 * `tas-sync status`: per company freshness (last run, last success, next scheduled run, stale,
 * failing), queues by state, the outbox; --json; exit 3 when a company is stale or failing.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSyncCommand } from "../../src/commands/sync.js";
import { parseConfig } from "../../src/config/index.js";
import { SyncQueue } from "../../src/queue/sync.js";
import { createClients } from "../../src/runtime.js";
import { openStore } from "../../src/store/open.js";
import { storeKinds } from "../support/stores.js";
import { logger, type PushHarness, startPushHarness } from "./push-harness.js";

interface StatusJson {
  healthy: boolean;
  companies: {
    company_id: number;
    stale: boolean;
    failing: boolean;
    last_success_at: string | null;
    next_run_at: string | null;
    last_run: { status: string; inserted: number } | null;
    rejected_now: number;
  }[];
  queues: { sync: { paused: boolean; jobs: Record<string, number> } };
  outbox: Record<string, unknown>;
}

describe.each(storeKinds())("tas-sync status on $name", (kind) => {
  let h: PushHarness;
  beforeAll(async () => {
    h = await startPushHarness(kind, { sim: { companies: 2, plans: 3 } });
  });
  afterAll(async () => {
    await h?.close();
    await kind.cleanup();
  });
  const status = async () => {
    const run = await h.cli(["status", "--json"]);
    return { code: run.code, json: JSON.parse(run.out.join("\n")) as StatusJson };
  };

  it("says stale for a company never synced, failing for one whose last run failed, and exits 3 until both are fine", async () => {
    const [first, second] = h.sim.companies;
    if (!first || !second) throw new Error("two companies expected");
    let s = await status();
    expect(s.code).toBe(3);
    expect(s.json.healthy).toBe(false);
    expect(s.json.companies.map((c) => [c.company_id, c.stale, c.last_run])).toEqual([
      [first.id, true, null],
      [second.id, true, null],
    ]);

    // The daemon's schedulers give each company a next run.
    const store = await openStore(h.cfg.database);
    const clients = createClients(h.cfg, logger);
    const queue = new SyncQueue({ cfg: h.cfg, store, clients, logger });
    await queue.schedule();
    s = await status();
    for (const c of s.json.companies)
      expect(Date.parse(c.next_run_at ?? "")).toBeGreaterThan(Date.now() - 60_000);
    const jobs = s.json.queues.sync.jobs;
    expect((jobs.waiting ?? 0) + (jobs.delayed ?? 0)).toBeGreaterThanOrEqual(2);
    await queue.queue.obliterate({ force: true });
    await queue.close();
    await clients.close();
    await store.close();

    // One company synced fine, the other with a refused token.
    const bad = parseConfig(
      {
        baseUrl: h.sim.baseUrl,
        database: h.database,
        companies: [
          { id: first.id, auth: { token: first.staticToken } },
          { id: second.id, auth: { token: `wrong-${randomUUID()}` } },
        ],
      },
      "(test)",
    );
    expect(await runSyncCommand(bad, { logger, out: () => {}, progress: null })).toBe(1);
    s = await status();
    expect(s.code).toBe(3);
    const [ok, failing] = s.json.companies;
    expect(ok).toMatchObject({
      company_id: first.id,
      stale: false,
      failing: false,
      last_run: { status: "succeeded", inserted: 3 },
    });
    expect(Date.parse(ok?.last_success_at ?? "")).toBeGreaterThan(0);
    expect(failing).toMatchObject({ company_id: second.id, failing: true, last_run: { status: "failed" } });

    const fixed = parseConfig(
      {
        baseUrl: h.sim.baseUrl,
        database: h.database,
        companies: [
          { id: first.id, auth: { token: first.staticToken } },
          { id: second.id, auth: { token: second.staticToken } },
        ],
      },
      "(test)",
    );
    expect(await runSyncCommand(fixed, { logger, out: () => {}, progress: null })).toBe(0);
    s = await status();
    expect(s.code).toBe(0);
    expect(s.json.healthy).toBe(true);
    const text = await h.cli(["status"]);
    expect(text.out[0]).toBe("companies:");
    expect(text.out.join("\n")).toMatch(new RegExp(`${second.id} +ok +succeeded`));

    // A plan the service keeps sending invalid: counted as rejected now, once per content.
    const put = await fetch(`${h.sim.baseUrl}/__admin/companies/${first.id}/plans/990001`, {
      method: "PUT",
      body: JSON.stringify({ id: 990001, company_id: first.id, enabled: "yes" }),
    });
    expect(put.status).toBeLessThan(300);
    for (let i = 0; i < 2; i++)
      expect(await runSyncCommand(fixed, { logger, out: () => {}, progress: null })).toBe(0);
    s = await status();
    expect(s.json.companies.map((c) => [c.company_id, c.rejected_now])).toEqual([
      [first.id, 1],
      [second.id, 0],
    ]);
  }, 60_000);
});
