/**
 * kill -9 of `tas-sync push --wait` in the middle of a push, then the same command again:
 * every row must end settled and the service, by its own count, must have created each row's
 * scenario exactly once. The killed worker's jobs stay locked in Redis until
 * push.lockDurationMs (1 s here) runs out. On both stores: what a kill leaves behind
 * (uncommitted writes, rows in flight) is theirs. Twice each: against a service that refuses a
 * repeated name (a row in flight at the kill is sent again and found to exist), and against
 * one that does not (push.uniqueNames false: such a row is never sent again, it fails as
 * OUTCOME_UNKNOWN, created at most once).
 */
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, startCli } from "../support/built-cli.js";
import { storeKinds } from "../support/stores.js";
import { flatRows, notOnce, type PushHarness, type RequestRow, startPushHarness } from "./push-harness.js";

const ROWS = 200;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

const MODES = [
  { names: "unique names", uniqueNames: true },
  { names: "names not unique", uniqueNames: false },
];

describe.each(storeKinds().flatMap((kind) => MODES.map((mode) => ({ kind, ...mode }))))(
  "push after kill -9 on $kind.name, $names",
  ({ kind, uniqueNames }) => {
    let h: PushHarness;
    beforeAll(async () => {
      h = await startPushHarness(kind, {
        // Latency keeps requests in flight, so the kill lands between send and answer.
        sim: { faults: { latencyMs: 30, namesNotUnique: uniqueNames ? 0 : 1 } },
        config: {
          logLevel: "warn",
          push: { ratePerSecond: 100, concurrency: 4, maxAttempts: 3, lockDurationMs: 1000, uniqueNames },
        },
      });
    });
    afterAll(async () => {
      await h?.close();
      await kind.cleanup();
    });

    it("settles every row and creates each scenario exactly once", async () => {
      const file = h.seed("crash.ndjson", flatRows(ROWS, "crash"));
      const first = startCli(["push", file, "--wait", "--config", h.configPath]);
      // Kill once a good part, but not all, is created.
      for (;;) {
        const n = (await h.scenarios()).length;
        if (n >= 40) break;
        const exited = await Promise.race([first.done, new Promise((r) => setTimeout(() => r(null), 20))]);
        if (exited) throw new Error(`push ended before the kill: ${JSON.stringify(exited)}`);
      }
      first.child.kill("SIGKILL");
      const killed = await first.done;
      expect(killed.signal).toBe("SIGKILL");

      const atKill = await h.requests();
      const createdAtKill = (await h.scenarios()).length;
      expect(createdAtKill).toBeLessThan(ROWS);
      // The kill left rows unsettled (and usually an attempt in flight): there is work to recover.
      expect(atKill.filter((r) => r.status === "queued").length).toBeGreaterThan(0);

      const queue = new Queue("push", { connection: h.redis, prefix: h.prefix });
      const heldAtKill = await queue.getActiveCount();
      await queue.close();
      const started = Date.now();
      const second = await startCli(["push", file, "--wait", "--config", h.configPath]).done;
      const recoveryMs = Date.now() - started;
      expect(second.stderr).not.toMatch(/"level":(50|60)/);
      const inFlightAtKill = atKill.filter((r) => r.in_flight === 1).map((r) => r.key);
      const unknown = (await h.requests())
        .filter((r) => r.error_code === "OUTCOME_UNKNOWN")
        .map((r) => r.key);
      // A row whose outcome is unknown fails only where names cannot tell, and it exits 1 then.
      expect(second.code).toBe(unknown.length ? 1 : 0);
      if (uniqueNames) expect(unknown).toEqual([]);
      for (const key of unknown) expect(inFlightAtKill).toContain(key);
      // Jobs the dead worker held: the second run says why it waits for them, and how long.
      if (heldAtKill > 0)
        expect(second.stderr).toContain(
          `tas-sync push: ${heldAtKill} job(s) are still held by a worker that stopped without releasing them`,
        );

      const rows = await h.requests();
      expect(rows).toHaveLength(ROWS);
      const byStatus: Record<string, RequestRow[]> = {};
      for (const r of rows) byStatus[r.status] = [...(byStatus[r.status] ?? []), r];
      const statuses = [
        "created",
        ...(byStatus.exists ? ["exists"] : []),
        ...(unknown.length ? ["failed"] : []),
      ];
      expect(Object.keys(byStatus).sort()).toEqual(statuses.sort());
      expect(rows.every((r) => r.in_flight === 0)).toBe(true);
      // The service's own count: each row created once; a row of unknown outcome at most once.
      const perKey = await h.createdPerKey();
      const known = rows.map((r) => r.key).filter((k) => !unknown.includes(k));
      expect(notOnce(perKey, known).filter((p) => !unknown.some((k) => p.startsWith(`${k}:`)))).toEqual([]);
      for (const key of unknown) expect(perKey[key]).toBeLessThanOrEqual(1);
      const sim = await h.scenarios();
      expect(sim).toHaveLength(known.length + unknown.filter((k) => perKey[k] === 1).length);
      // Every created row points at the service's scenario of that name.
      const simId = new Map(sim.map((s) => [`${s.project_id}/${s.scenario_name}`, s.id]));
      const mine = await h.rows<{ key: string; project_id: number; scenario_name: string; id: number }>(
        "SELECT r.key, s.project_id, s.scenario_name, s.id FROM scenario_requests r JOIN scenarios s ON s.id = r.scenario_id",
      );
      expect(mine).toHaveLength(byStatus.created?.length ?? 0);
      for (const m of mine) expect(simId.get(`${m.project_id}/${m.scenario_name}`)).toBe(m.id);
      // Rows whose answer died with the process were found to exist, not created again.
      for (const r of byStatus.exists ?? []) expect(r.uncertain).toBe(1);
      const settledAs = uniqueNames ? ["created", "exists"] : ["created", "failed"];
      for (const key of inFlightAtKill) expect(settledAs).toContain((await h.request(key)).status);
      console.info(
        `kill -9 after ${createdAtKill} created, ${inFlightAtKill.length} in flight; recovery took ${recoveryMs} ms; ` +
          `${byStatus.exists?.length ?? 0} exists, ${unknown.length} outcome unknown`,
      );
    });
  },
);
