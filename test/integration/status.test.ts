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
import { storeKind, storeKinds } from "../support/stores.js";
import { logger, type PushHarness, startPushHarness } from "./push-harness.js";

interface StatusJson {
  healthy: boolean;
  daemon: { running: boolean; sync_workers: number; push_workers: number } | null;
  companies: {
    company_id: number;
    stale: boolean;
    failing: boolean;
    last_success_at: string | null;
    next_run_at: string | null;
    next_run_overdue: boolean | null;
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

describe("tas-sync status without a daemon", () => {
  const kind = storeKind("sqlite");
  let h: PushHarness;
  beforeAll(async () => {
    h = await startPushHarness(kind, { sim: { companies: 2, plans: 3 } });
  });
  afterAll(async () => {
    await h?.close();
    await kind.cleanup();
  });

  it("says that no daemon is running and flags a next run past its time, until a worker connects", async () => {
    const [first, second] = h.sim.companies;
    if (!first || !second) throw new Error("two companies expected");
    const store = await openStore(h.cfg.database);
    const clients = createClients(h.cfg, logger);
    const queue = new SyncQueue({ cfg: h.cfg, store, clients, logger });
    try {
      await queue.schedule();
      // Scheduled, nobody running it, not late yet.
      let json = JSON.parse((await h.cli(["status", "--json"])).out.join("\n")) as StatusJson;
      expect(json.daemon).toEqual({ running: false, sync_workers: 0, push_workers: 0 });
      expect(json.companies.map((c) => c.next_run_overdue)).toEqual([false, false]);
      let text = (await h.cli(["status"])).out;
      expect(text).toContain(
        "  no daemon is running: no worker is connected to the queues, so scheduled syncs and queued push rows wait until tas-sync daemon runs",
      );

      // The first company's next run was due ten minutes ago (its scheduler's time, in Redis).
      const repeat = `${h.prefix}:sync:repeat`;
      const members = await h.redis.zrange(repeat, 0, -1);
      const firstKey = members.find((m) => m.includes(String(first.id)));
      expect(firstKey).toBeDefined();
      const due = Date.now() - 10 * 60_000;
      await h.redis.zadd(repeat, due, firstKey as string);
      json = JSON.parse((await h.cli(["status", "--json"])).out.join("\n")) as StatusJson;
      expect(json.companies.map((c) => [c.company_id, c.next_run_overdue])).toEqual([
        [first.id, true],
        [second.id, false],
      ]);
      text = (await h.cli(["status"])).out;
      expect(text.join("\n")).toMatch(
        new RegExp(`^${first.id} .* ${new Date(due).toISOString()} OVERDUE by 10m$`, "m"),
      );
      expect(text).toContain(
        "  no daemon is running: no worker is connected to the queues, so the overdue runs above wait until tas-sync daemon runs",
      );

      // A worker on the sync queue (as a running daemon has): no such line.
      const worker = queue.startWorker();
      await worker.waitUntilReady();
      json = JSON.parse((await h.cli(["status", "--json"])).out.join("\n")) as StatusJson;
      expect(json.daemon).toMatchObject({ running: true, sync_workers: 1 });
      text = (await h.cli(["status"])).out;
      expect(text.some((l) => l.includes("no daemon is running"))).toBe(false);
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
      await clients.close();
      await store.close();
    }
  }, 60_000);
});
