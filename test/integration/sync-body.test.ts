/**
 * Plan lists that break: a proxy in front of the simulator cuts, truncates or fails the
 * body of GET /api/plans while every other request passes through untouched.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { JsonArrayScanner } from "../../src/json/array.js";
import { storeKinds } from "../support/stores.js";
import {
  admin,
  childSnapshot,
  FIRST,
  fastSleep,
  type Harness,
  logger,
  startHarness,
} from "./sync-harness.js";

type Mode = "pass" | "cut" | "truncate" | "fail500";

const T1 = "2025-01-01T00:00:00.000Z";
const T2 = "2025-01-02T00:00:00.000Z";
/** Every column of the plans but their last sighting. */
const PLANS_BUT_SEEN =
  "SELECT id, company_id, plan_name, raw_json, content_hash, first_seen_at, deleted_at FROM plans ORDER BY id";

describe.each(storeKinds())("plan list bodies on $name", (kind) => {
  let h: Harness;
  let proxy: Server;
  let proxyBase: string;
  let planRequests: number;
  /** What to do with the n-th (1-based) plan list request. */
  let modeFor: (n: number) => Mode;
  /** The first half of the last plan list body (what "cut" and "truncate" send). */
  let lastHalf: Buffer;

  beforeEach(async () => {
    h = await startHarness(kind);
    planRequests = 0;
    modeFor = () => "pass";
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const k of ["authorization", "current-company-id", "content-type", "accept"]) {
        const v = req.headers[k];
        if (typeof v === "string") headers[k] = v;
      }
      const upstream = await fetch(`http://127.0.0.1:${h.sim.port}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      const isPlans = req.method === "GET" && /\/api\/plans$/.test(req.url ?? "");
      const mode = isPlans ? modeFor(++planRequests) : "pass";
      const half = body.subarray(0, Math.floor(body.length / 2));
      if (isPlans) lastHalf = half;
      if (mode === "cut") {
        // Chunked, half the body, then the connection dies.
        res.writeHead(200, { "content-type": "application/json" });
        res.write(half);
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (mode === "truncate") {
        // A clean, complete HTTP response whose JSON array simply stops.
        res.writeHead(200, { "content-type": "application/json", "content-length": half.length });
        res.end(half);
      } else if (mode === "fail500") {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "Internal Server Error", message: "proxy says no" }));
      } else {
        res.writeHead(upstream.status, { "content-type": "application/json" });
        res.end(body);
      }
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/Testinium.RestApi`;
  });
  afterEach(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await h.close();
  });
  afterAll(() => kind.cleanup());

  function viaProxy(): TasClient {
    return new TasClient({
      http: h.http,
      baseUrl: proxyBase,
      auth: new StaticTokenProvider(`sim-token-${FIRST}`),
      companyId: FIRST,
      maxAttempts: 4,
      logger,
      sleep: fastSleep,
    });
  }

  describe("a plan list body that breaks", () => {
    it("restarts the list after a connection drop midway and stores each plan once", async () => {
      modeFor = (n) => (n === 1 ? "cut" : "pass");
      const result = await h.sync(FIRST, { client: viaProxy(), at: T1 });
      expect(result.status).toBe("succeeded");
      expect(planRequests).toBe(2);
      expect(result.counts).toEqual({
        fetched: 8,
        inserted: 8,
        updated: 0,
        unchanged: 0,
        deleted: 0,
        rejected: 0,
      });
      expect(await h.scalar("SELECT count(*) FROM plans")).toBe(6);
      expect(await h.scalar("SELECT count(*) FROM plan_versions")).toBe(6);
      expect(await h.scalar("SELECT occurrences FROM plan_environments WHERE plan_id = 1001")).toBe(16);
    });

    /** Prepares a second sync whose plan list breaks in `mode`; a report changed meanwhile. */
    async function breakingSync(mode: Mode) {
      await h.sync(FIRST, { client: viaProxy(), at: T1 });
      const plansBefore = await h.rows(PLANS_BUT_SEEN);
      const childrenBefore = await childSnapshot(h);
      planRequests = 0;
      modeFor = () => mode;
      const report = JSON.parse((await admin(h.sim, "GET", "reports/132")).text);
      await admin(h.sim, "PUT", "reports/132", { ...report, report_name: "Renamed report" });
      const result = await h.sync(FIRST, { client: viaProxy(), at: T2 });
      return { result, plansBefore, childrenBefore };
    }

    /** Nothing of the plans moved; the report half still landed. */
    async function expectPlansKept(before: {
      plansBefore: unknown;
      childrenBefore: Record<string, unknown>;
    }) {
      expect(await h.rows(PLANS_BUT_SEEN)).toEqual(before.plansBefore);
      expect(await h.scalar("SELECT count(*) FROM plans WHERE deleted_at IS NOT NULL")).toBe(0);
      const children = await childSnapshot(h);
      for (const t of Object.keys(children).filter((k) => k.startsWith("plan") || k === "mobile_apps"))
        expect(children[t], t).toEqual(before.childrenBefore[t]);
      expect(await h.scalar("SELECT report_name FROM scheduled_reports WHERE id = 132")).toBe(
        "Renamed report",
      );
    }

    it("on fail500 every time: writes no plan, deletes nothing, keeps the reports, and ends partial", async () => {
      const before = await breakingSync("fail500");
      const { result } = before;
      expect(result.status).toBe("partial");
      expect(planRequests).toBe(4);
      expect(result.counts).toEqual({
        fetched: 2,
        inserted: 0,
        updated: 1,
        unchanged: 1,
        deleted: 0,
        rejected: 0,
      });
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/^plans: listPlans/);
      expect(await h.rows("SELECT entity, code FROM sync_errors WHERE run_id = ?", result.runId)).toEqual([
        { entity: "plans", code: "INTERNAL_SERVER_ERROR" },
      ]);
      await expectPlansKept(before);
      expect(await h.scalar("SELECT status FROM sync_runs WHERE id = ?", result.runId)).toBe("partial");
    });

    it.each<[Mode, string, number]>([
      ["cut", "CONNECTION_RESET", 4],
      ["truncate", "NOT_A_JSON_ARRAY", 1],
    ])(
      "on %s every time: keeps the plans that came whole, rejects the one it broke in, deletes nothing, ends partial",
      async (mode, code, requests) => {
        const before = await breakingSync(mode);
        const { result } = before;
        // What the last attempt received: its complete elements, and the one it broke in.
        const scanner = new JsonArrayScanner();
        scanner.push(lastHalf, () => {});
        const whole = scanner.count;
        const tail = scanner.pending();
        expect(whole).toBeGreaterThan(0);
        expect(tail).not.toBeNull();
        expect(result.status).toBe("partial");
        expect(planRequests).toBe(requests);
        expect(result.counts).toEqual({
          fetched: 2 + whole,
          inserted: 0,
          updated: 1,
          unchanged: 1 + whole,
          deleted: 0,
          rejected: 1,
        });
        expect(result.errors).toHaveLength(2);
        expect(result.errors[0]).toMatch(
          new RegExp(`^plans: the plan list broke off after ${whole} plan\\(s\\): listPlans`),
        );
        expect(result.errors[1]).toMatch(/^plans: deletions held back: .*the list is incomplete/);
        expect(
          await h.rows("SELECT entity, code FROM sync_errors WHERE run_id = ? ORDER BY id", result.runId),
        ).toEqual([
          { entity: "plans", code },
          { entity: "plans", code: "DELETIONS_HELD_BACK" },
        ]);
        expect(
          await h.rows(
            "SELECT entity_id, raw_json FROM rejected_records WHERE first_run_id = ?",
            result.runId,
          ),
        ).toEqual([{ entity_id: null, raw_json: tail?.toString("utf8") }]);
        await expectPlansKept(before);
        // The plans that came whole were seen in this list; the list vouches for no other.
        expect(
          await h.rows(
            "SELECT last_seen_at, count(*) AS n FROM v_plans GROUP BY last_seen_at ORDER BY last_seen_at",
          ),
        ).toEqual([
          { last_seen_at: T1, n: 6 - whole },
          { last_seen_at: T2, n: whole },
        ]);
        // Without writing the rows of the plans it saw unchanged: those it lacks are set aside.
        expect(await h.scalar("SELECT count(*) FROM plans WHERE seen_at = ?", T2)).toBe(0);
        expect(await h.scalar("SELECT count(*) FROM unlisted_plans")).toBe(6 - whole);
      },
    );
  });
});
