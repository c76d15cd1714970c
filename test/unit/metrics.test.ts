/** Metrics: what each Telemetry call adds, the scrape-time gauges, and the text exposition. */
import { register as globalRegistry, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { type CompanyFreshness, Metrics, type QueueCounts } from "../../src/metrics.js";

function metrics(
  over: {
    freshness?: () => Promise<CompanyFreshness[]>;
    queueCounts?: () => Promise<QueueCounts[]>;
    onCollectError?: (metric: string, error: unknown) => void;
  } = {},
) {
  return new Metrics({
    freshness: over.freshness ?? (async () => []),
    queueCounts: over.queueCounts ?? (async () => []),
    ...(over.onCollectError ? { onCollectError: over.onCollectError } : {}),
  });
}

/** The samples of one metric as { "label=value,...": value }. */
async function samples(m: Metrics, name: string): Promise<Record<string, number>> {
  const metric = m.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const out: Record<string, number> = {};
  for (const v of (await metric.get()).values) {
    const labels = Object.entries(v.labels)
      .map(([k, l]) => `${k}=${l}`)
      .join(",");
    const key = "metricName" in v && v.metricName !== name ? `${String(v.metricName)}{${labels}}` : labels;
    out[key] = v.value;
  }
  return out;
}

const NAMES = [
  "tas_sync_sync_duration_seconds",
  "tas_sync_sync_runs_total",
  "tas_sync_records_total",
  "tas_sync_last_success_timestamp_seconds",
  "tas_sync_company_stale",
  "tas_sync_push_outcomes_total",
  "tas_sync_http_requests_total",
  "tas_sync_http_retries_total",
  "tas_sync_rate_limit_waits_total",
  "tas_sync_rate_limit_wait_seconds_total",
  "tas_sync_queue_jobs",
];

describe("Metrics", () => {
  it("exposes every metric with its HELP and TYPE line, plus the process defaults", async () => {
    const text = await metrics().registry.metrics();
    for (const name of NAMES) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S`, "m"));
      expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, "m"));
    }
    expect(text).toContain("process_cpu_user_seconds_total");
  });

  it("registers on its own registry, never on prom-client's global one", async () => {
    const own = new Registry();
    const m = new Metrics({ registry: own, freshness: async () => [], queueCounts: async () => [] });
    expect(m.registry).toBe(own);
    expect(own.getSingleMetric("tas_sync_sync_runs_total")).toBeDefined();
    expect(globalRegistry.getSingleMetric("tas_sync_sync_runs_total")).toBeUndefined();
    // A second instance does not collide with the first (no shared registry).
    expect(() => metrics()).not.toThrow();
  });

  it("counts a finished sync: run, duration and every record outcome (zeros included)", async () => {
    const m = metrics();
    m.syncFinished(7, "succeeded", 12.5, { inserted: 3, updated: 2, unchanged: 10, deleted: 1, rejected: 0 });
    m.syncFinished(7, "succeeded", 0.2, { inserted: 1, updated: 0, unchanged: 0, deleted: 0, rejected: 4 });
    m.syncFinished(9, "failed", 1, { inserted: 0, updated: 0, unchanged: 0, deleted: 0, rejected: 0 });

    expect(await samples(m, "tas_sync_sync_runs_total")).toEqual({
      "company=7,outcome=succeeded": 2,
      "company=9,outcome=failed": 1,
    });
    const records = await samples(m, "tas_sync_records_total");
    expect(records["company=7,outcome=inserted"]).toBe(4);
    expect(records["company=7,outcome=unchanged"]).toBe(10);
    expect(records["company=7,outcome=rejected"]).toBe(4);
    expect(records["company=9,outcome=deleted"]).toBe(0);
    expect(Object.keys(records)).toHaveLength(10);

    const duration = await samples(m, "tas_sync_sync_duration_seconds");
    expect(duration["tas_sync_sync_duration_seconds_count{company=7,outcome=succeeded}"]).toBe(2);
    expect(duration["tas_sync_sync_duration_seconds_sum{company=7,outcome=succeeded}"]).toBeCloseTo(12.7);
    expect(duration["tas_sync_sync_duration_seconds_bucket{le=1,company=7,outcome=succeeded}"]).toBe(1);
  });

  it("counts push outcomes with their code, empty when there is none", async () => {
    const m = metrics();
    m.pushOutcome("created", null);
    m.pushOutcome("created", null);
    m.pushOutcome("failed", "INVALID_SCENARIO_NAME");
    m.pushOutcome("retry", "RATE_LIMITED");
    expect(await samples(m, "tas_sync_push_outcomes_total")).toEqual({
      "outcome=created,code=": 2,
      "outcome=failed,code=INVALID_SCENARIO_NAME": 1,
      "outcome=retry,code=RATE_LIMITED": 1,
    });
  });

  it("counts HTTP attempts by status ('error' without one), retries and rate-limit waits", async () => {
    const m = metrics();
    m.httpRequest("listPlans", 200);
    m.httpRequest("listPlans", 200);
    m.httpRequest("listPlans", 503);
    m.httpRequest("createScenario", "error");
    m.httpRetry("listPlans");
    m.rateLimitWait("createScenario", 1.5);
    m.rateLimitWait("createScenario", 2);
    expect(await samples(m, "tas_sync_http_requests_total")).toEqual({
      "operation=listPlans,status=200": 2,
      "operation=listPlans,status=503": 1,
      "operation=createScenario,status=error": 1,
    });
    expect(await samples(m, "tas_sync_http_retries_total")).toEqual({ "operation=listPlans": 1 });
    expect(await samples(m, "tas_sync_rate_limit_waits_total")).toEqual({ "operation=createScenario": 2 });
    expect(await samples(m, "tas_sync_rate_limit_wait_seconds_total")).toEqual({
      "operation=createScenario": 3.5,
    });
  });

  it("reads freshness at scrape time: no timestamp for a company never synced, stale as 1/0", async () => {
    let companies: CompanyFreshness[] = [
      { companyId: 1, lastSuccessAt: new Date("2024-05-01T00:00:10Z"), stale: false },
      { companyId: 2, lastSuccessAt: null, stale: true },
    ];
    let reads = 0;
    const m = metrics({
      freshness: async () => {
        reads++;
        return companies;
      },
    });
    const text = await m.registry.metrics();
    expect(text).toContain('tas_sync_last_success_timestamp_seconds{company="1"} 1714521610');
    expect(text).not.toContain('tas_sync_last_success_timestamp_seconds{company="2"}');
    expect(text).toContain('tas_sync_company_stale{company="1"} 0');
    expect(text).toContain('tas_sync_company_stale{company="2"} 1');
    expect(reads).toBe(1); // both gauges share one read per scrape

    companies = [{ companyId: 2, lastSuccessAt: new Date("2024-05-02T00:00:00Z"), stale: false }];
    const next = await m.registry.metrics();
    expect(next).not.toContain('company="1"'); // a company that went away leaves no series
    expect(next).toContain('tas_sync_company_stale{company="2"} 0');
    expect(reads).toBe(2);
  });

  it("reads queue counts at scrape time, one sample per queue and state", async () => {
    const m = metrics({
      queueCounts: async (): Promise<QueueCounts[]> => [
        { queue: "sync", counts: { waiting: 2, active: 1, "waiting-children": 0 } },
        { queue: "push", counts: { failed: 5 } },
      ],
    });
    expect(await samples(m, "tas_sync_queue_jobs")).toEqual({
      "queue=sync,state=waiting": 2,
      "queue=sync,state=active": 1,
      "queue=sync,state=waiting-children": 0,
      "queue=push,state=failed": 5,
    });
  });

  it("answers the scrape when a scrape-time read fails, without samples for that gauge", async () => {
    const errors: string[] = [];
    let fail = false;
    const m = metrics({
      freshness: async () => {
        if (fail) throw new Error("database is locked");
        return [{ companyId: 1, lastSuccessAt: new Date(1000), stale: false }];
      },
      queueCounts: async () => {
        throw new Error("Redis is down");
      },
      onCollectError: (metric, err) => errors.push(`${metric}: ${(err as Error).message}`),
    });
    m.httpRetry("listPlans");
    expect(await m.registry.metrics()).toContain('tas_sync_company_stale{company="1"} 0');

    fail = true;
    const text = await m.registry.metrics();
    expect(text).toContain("# HELP tas_sync_queue_jobs");
    expect(text).not.toMatch(/^tas_sync_queue_jobs\{/m);
    expect(text).not.toMatch(/^tas_sync_company_stale\{/m); // the earlier sample is not kept
    expect(text).toContain('tas_sync_http_retries_total{operation="listPlans"} 1');
    expect(errors).toContain("tas_sync_queue_jobs: Redis is down");
    expect(errors).toContain("tas_sync_company_stale: database is locked");
  });
});
