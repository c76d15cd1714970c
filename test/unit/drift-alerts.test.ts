/**
 * A run's schema changes as the daemon tells them: one webhook message per run, grouped by
 * entity and kind (pure), posted to a real HTTP receiver, and counted in /metrics. The store
 * plays no part here (telemetry hears of the changes from the sync): no store kind to vary.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebhookSender } from "../../src/alerts/webhook.js";
import { withDriftAlerts } from "../../src/daemon/drift-alerts.js";
import { createLogger } from "../../src/log.js";
import { Metrics } from "../../src/metrics.js";
import { driftAlert, groupChanges } from "../../src/observed/drift.js";
import { Secret } from "../../src/secret.js";
import type { SchemaChangeNote } from "../../src/telemetry.js";

const logger = createLogger({ level: "silent", pretty: false });
const AT = new Date("2025-03-02T10:00:00.000Z");

const DRIFT: SchemaChangeNote[] = [
  {
    entity: "mobile_app_metadata:ANDROID",
    path: "versionCode",
    kind: "type_changed",
    before: "integer",
    after: "string",
    exampleId: 13,
  },
  {
    entity: "plan",
    path: "screen_shot_type",
    kind: "new_value",
    before: null,
    after: "ON_FAILURE_ONLY",
    exampleId: 12,
  },
  { entity: "plan", path: "labels", kind: "added", before: null, after: "array", exampleId: 11 },
  { entity: "plan", path: "labels[]", kind: "added", before: null, after: "string", exampleId: 11 },
];

describe("the drift alert of a run", () => {
  it("groups the changes by entity (a plan first) and kind, each with before, after and an example", () => {
    expect(driftAlert(5251, 12, DRIFT, { at: AT, host: "vm" })).toEqual({
      event: "schema_changed",
      company_id: 5251,
      at: "2025-03-02T10:00:00.000Z",
      host: "vm",
      service: "tas-sync",
      run_id: 12,
      summary:
        "company 5251, run 12: 4 schema change(s) (plan: 2 added, 1 new_value; mobile_app_metadata:ANDROID: 1 type_changed)",
      changes: 4,
      groups: [
        {
          entity: "plan",
          kind: "added",
          count: 2,
          changes: [
            { path: "labels", before: null, after: "array", example_id: 11, refused: null },
            { path: "labels[]", before: null, after: "string", example_id: 11, refused: null },
          ],
        },
        {
          entity: "plan",
          kind: "new_value",
          count: 1,
          changes: [
            {
              path: "screen_shot_type",
              before: null,
              after: "ON_FAILURE_ONLY",
              example_id: 12,
              refused: null,
            },
          ],
        },
        {
          entity: "mobile_app_metadata:ANDROID",
          kind: "type_changed",
          count: 1,
          changes: [
            { path: "versionCode", before: "integer", after: "string", example_id: 13, refused: null },
          ],
        },
      ],
      see: "tas-sync schema --changes --since 12 --company 5251",
    });
  });

  it("lists a group's first changes and counts them all", () => {
    const many: SchemaChangeNote[] = Array.from({ length: 25 }, (_, i) => ({
      entity: "plan",
      path: "screen_shot_type",
      kind: "new_value",
      before: null,
      after: `V${i}`,
      exampleId: i,
    }));
    const [g] = groupChanges(many);
    expect(g?.count).toBe(25);
    expect(g?.changes.map((c) => c.after)).toEqual(Array.from({ length: 20 }, (_, i) => `V${i}`));
  });
});

describe("the daemon's telemetry", () => {
  let server: Server;
  let url: string;
  const bodies: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        bodies.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    url = `http://127.0.0.1:${address.port}/hooks/T0/DRIFT-HOOK-TOKEN`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    bodies.length = 0;
  });

  const setUp = () => {
    const metrics = new Metrics({ freshness: async () => [], queueCounts: async () => [] });
    const sender = new WebhookSender({ url: new Secret(url), timeoutMs: 2000, logger });
    return { metrics, sender, telemetry: withDriftAlerts(metrics, { sender, logger, now: () => AT }) };
  };

  it("posts one message per run that recorded changes, and counts them by entity and kind in /metrics", async () => {
    const { metrics, sender, telemetry } = setUp();
    telemetry.schemaChanged(5251, 12, DRIFT);
    telemetry.schemaChanged(5252, 13, []);
    telemetry.schemaChanged(5252, 14, [DRIFT[1] as SchemaChangeNote]);
    await sender.flush();
    const sent = bodies.map((b) => JSON.parse(b) as ReturnType<typeof driftAlert>);
    expect(sent.map((s) => [s.event, s.company_id, s.run_id, s.changes])).toEqual([
      ["schema_changed", 5251, 12, 4],
      ["schema_changed", 5252, 14, 1],
    ]);
    expect(sent[0]?.groups.map((g) => [g.entity, g.kind, g.count])).toEqual([
      ["plan", "added", 2],
      ["plan", "new_value", 1],
      ["mobile_app_metadata:ANDROID", "type_changed", 1],
    ]);
    expect(bodies.join("")).not.toContain("DRIFT-HOOK-TOKEN");
    const text = await metrics.registry.metrics();
    const samples = text.split("\n").filter((l) => l.startsWith("tas_sync_schema_changes_total{"));
    expect(samples.sort()).toEqual([
      'tas_sync_schema_changes_total{entity="mobile_app_metadata:ANDROID",kind="type_changed"} 1',
      'tas_sync_schema_changes_total{entity="plan",kind="added"} 2',
      'tas_sync_schema_changes_total{entity="plan",kind="new_value"} 2',
    ]);
  });

  it("tells a type change of refused records with their count: in the alert, its summary and /metrics", async () => {
    const { metrics, sender, telemetry } = setUp();
    const refused: SchemaChangeNote = {
      entity: "plan",
      path: "plan_parallel_test_limit",
      kind: "type_changed",
      before: "integer",
      after: "integer,string",
      exampleId: 1004,
      refused: 3,
    };
    telemetry.schemaChanged(5251, 15, [refused]);
    await sender.flush();
    const [sent] = bodies.map((b) => JSON.parse(b) as ReturnType<typeof driftAlert>);
    expect(sent?.summary).toBe(
      "company 5251, run 15: 1 schema change(s) (plan: 1 type_changed); 3 record(s) refused for them",
    );
    expect(sent?.groups).toEqual([
      {
        entity: "plan",
        kind: "type_changed",
        count: 1,
        changes: [
          {
            path: "plan_parallel_test_limit",
            before: "integer",
            after: "integer,string",
            example_id: 1004,
            refused: 3,
          },
        ],
      },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('tas_sync_schema_changes_total{entity="plan",kind="type_changed"} 1');
    expect(text).toContain('tas_sync_schema_refused_records_total{entity="plan",kind="type_changed"} 3');
  });

  it("passes every other report on to the metrics", async () => {
    const { metrics, telemetry } = setUp();
    telemetry.httpRequest("listPlans", 200);
    telemetry.httpRetry("listPlans");
    telemetry.rateLimitWait("listPlans", 2);
    telemetry.pushOutcome("created", null);
    telemetry.syncFinished(5251, "succeeded", 1.5, {
      inserted: 3,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      rejected: 0,
    });
    const text = await metrics.registry.metrics();
    for (const sample of [
      'tas_sync_http_requests_total{operation="listPlans",status="200"} 1',
      'tas_sync_http_retries_total{operation="listPlans"} 1',
      'tas_sync_rate_limit_wait_seconds_total{operation="listPlans"} 2',
      'tas_sync_push_outcomes_total{outcome="created",code=""} 1',
      'tas_sync_records_total{company="5251",outcome="inserted"} 3',
    ])
      expect(text).toContain(sample);
  });

  it("never throws into the sync when an alert cannot be made or sent", () => {
    const metrics = new Metrics({ freshness: async () => [], queueCounts: async () => [] });
    const broken = {
      send() {
        throw new Error("queue full");
      },
    } as unknown as WebhookSender;
    const telemetry = withDriftAlerts(metrics, { sender: broken, logger });
    expect(() => telemetry.schemaChanged(5251, 12, DRIFT)).not.toThrow();
  });
});
