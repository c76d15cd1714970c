/**
 * One plan list holding every kind of hostile element at once, synced by the built CLI into
 * both stores: the good plans are stored, each bad element is rejected with its reason, the
 * run is not `failed`, and the process runs under a small heap cap (unbounded memory would
 * crash it). The list ends cut off inside an element.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt } from "../support/built-cli.js";
import { type HostileServer, startHostileServer } from "../support/hostile-server.js";
import { storeKinds } from "../support/stores.js";

const COMPANY = 5251;
const DEEP = 100_000;
/** A heap this small holds the list's few MB many times over, not an unbounded buffer. */
const HEAP_MB = 96;

let sim: RunningSimulator;
let server: HostileServer;
let dir: string;
let good: Record<string, unknown>[];
/** The list's elements as text, and what became of each hostile one. */
let elements: string[];
let cutTail: string;

const deep = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
const deepObject = `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`;
const plan = (over: Record<string, unknown>, id: number) => ({ ...good[0], id, ...over });

beforeAll(async () => {
  await ensureBuilt();
  sim = await startSimulator({ port: 0, companies: 1, plans: 12, reports: 0 });
  const company = sim.companies[0];
  const res = await fetch(`${sim.baseUrl}/api/plans`, {
    headers: { authorization: `Bearer ${company?.staticToken}` },
  });
  good = (await res.json()) as Record<string, unknown>[];
  const mobile = good.find((p) => p.selected_android_mobile_app) as Record<string, unknown>;
  const app = mobile.selected_android_mobile_app as Record<string, unknown>;
  elements = [
    JSON.stringify(good[0]),
    // Nesting 100k deep in a field kept as JSON text: rejected, naming the field.
    JSON.stringify(plan({}, 9001)).replace(/"alerts":\[[^\]]*\]/, `"alerts":[${deep}]`),
    // ... and inside mobile_app_metadata (a JSON document in a string): kept raw, not read.
    JSON.stringify({
      ...mobile,
      id: 9002,
      selected_android_mobile_app: { ...app, id: 77_001, mobile_app_metadata: deepObject },
    }),
    // A 4 MB string: stored.
    JSON.stringify(plan({ description: "x".repeat(4_000_000) }, 9003)),
    // An id beyond 2^53: rejected, never rounded (the text is kept as sent).
    JSON.stringify(plan({}, 1)).replace(/^\{"id":1,/, '{"id":9007199254740993,'),
    '"a string"',
    "null",
    "42",
    // An epoch past Date's range (a safe integer): stored, the column NULL, the raw kept.
    JSON.stringify(plan({ period: { period_type: "ONCE", once_date: 8_700_000_000_000_000 } }, 9004)),
    // A lone surrogate: stored as U+FFFD on both stores; the raw JSON keeps the escape.
    JSON.stringify(plan({}, 9005)).replace(/"plan_name":"[^"]*"/, '"plan_name":"lone \\ud800 surrogate"'),
    ...good.slice(1).map((p) => JSON.stringify(p)),
    // A second copy of an id: the first wins.
    JSON.stringify({ ...good[1], plan_name: "second copy" }),
  ];
  cutTail = JSON.stringify(plan({}, 9006)).slice(0, 40);
  server = await startHostileServer();
  server.setHandler((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`[${elements.join(",")},${cutTail}`);
  });
  dir = mkdtempSync(join(tmpdir(), "tas-hostile-records-"));
}, 180_000);
afterAll(async () => {
  await server?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(storeKinds())("a plan list of hostile elements, into $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("stores the good plans, rejects each bad element with its reason, and the run is not failed", async () => {
    const database = await kind.fresh();
    const config = join(dir, `${kind.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: server.baseUrl,
        database,
        logLevel: "warn",
        http: { maxAttempts: 1, maxRequestsPerSecond: 1000 },
        companies: [{ id: COMPANY, reportIds: [], auth: { token: "hostile-token" } }],
      }),
    );
    const r = await cli(["sync", "--config", config], { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` });
    expect(r.stderr).not.toMatch(/heap out of memory|Maximum call stack/);
    // Partial: the list broke off, so deletions are held back; never failed.
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const store = await kind.open(database);
    try {
      const q = <T = Record<string, unknown>>(sql: string, ...p: unknown[]) => kind.rows<T>(store, sql, ...p);
      const [run] = await q<{ status: string; inserted: number; rejected: number; fetched: number }>(
        "SELECT status, inserted, rejected, fetched FROM sync_runs",
      );
      expect(run).toMatchObject({ status: "partial", fetched: elements.length });
      const stored = (await q<{ id: number }>("SELECT id FROM plans ORDER BY id")).map((p) => p.id);
      const expected = [...good.map((p) => p.id as number), 9002, 9003, 9004, 9005].sort((a, b) => a - b);
      expect(stored).toEqual(expected);
      // The first copy of a repeated id is the one stored.
      expect(await q("SELECT plan_name FROM plans WHERE id = ?", good[1]?.id)).toEqual([
        { plan_name: good[1]?.plan_name },
      ]);
      const rejected = await q<{ entity_id: number | null; reason: string; raw_json: string | null }>(
        "SELECT entity_id, reason, raw_json FROM rejected_records ORDER BY id",
      );
      const reasons = rejected.map((x) => [x.entity_id, x.reason]);
      expect(reasons).toEqual([
        [9001, "alerts.0: nested more than 64 levels deep"],
        [null, "id: an integer beyond 2^53 cannot be read exactly"],
        [null, '(record): expected an object, got "a string"'],
        [null, "(record): expected an object, got null"],
        [null, "(record): expected an object, got 42"],
        [
          good[1]?.id,
          expect.stringMatching(
            /^plan id \d+ appears twice in the response \(elements 11 and \d+\); this later copy was rejected$/,
          ),
        ],
        [null, expect.stringMatching(/^the plan list broke off inside this element \(\d+ bytes received\)$/)],
      ]);
      // Nothing is rounded: the rejected record keeps the id as sent.
      expect(rejected[1]?.raw_json).toContain('"id":9007199254740993,');
      expect(rejected.at(-1)?.raw_json).toBe(cutTail);
      expect(rejected[0]?.raw_json?.length).toBeGreaterThan(2 * DEEP);
      // Kept raw inside a mobile app: the metadata parses, and is an object without the keys.
      expect(
        await q(
          "SELECT length(metadata_json) AS n, metadata_error, app_id FROM mobile_apps WHERE id = 77001",
        ),
      ).toEqual([{ n: deepObject.length, metadata_error: null, app_id: null }]);
      expect(await q("SELECT length(description) AS n FROM plans WHERE id = 9003")).toEqual([
        { n: 4_000_000 },
      ]);
      expect(await q("SELECT period_type, period_once_at FROM plans WHERE id = 9004")).toEqual([
        { period_type: "ONCE", period_once_at: null },
      ]);
      const [lone] = await q<{ plan_name: string; raw_json: string }>(
        "SELECT plan_name, raw_json FROM plans WHERE id = 9005",
      );
      expect(lone?.plan_name).toBe("lone \ufffd surrogate");
      expect(lone?.raw_json).toContain('"plan_name":"lone \\ud800 surrogate"');
      const errors = await q<{ code: string }>("SELECT code FROM sync_errors ORDER BY id");
      expect(errors.map((e) => e.code)).toEqual(["NOT_A_JSON_ARRAY", "DELETIONS_HELD_BACK"]);
    } finally {
      await store.close();
    }
  }, 120_000);
});
