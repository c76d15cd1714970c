/** Hand-made snapshot operations for the store-level tests: plans, reports, and applying them. */

import type { Store } from "../../src/store/port.js";
import { emptyCounts, type RunEnd } from "../../src/store/port-runs.js";
import type { ApplyResult, SnapshotIndex, SnapshotOp } from "../../src/store/port-snapshot.js";
import type {
  PlanRowSet as NormalizedPlan,
  ReportRowSet as NormalizedReport,
} from "../../src/tables/index.js";

export const COMPANY = 5251;
export const OTHER_COMPANY = 5252;

/** A plan with two days, two scenarios, one resolution and a mobile app shared by every plan. */
export function plan(id: number, name: string, companyId = COMPANY): NormalizedPlan {
  return {
    plan: {
      id,
      companyId,
      projectId: 3_000_000_000 + id, // above 2^31: a bigint on PostgreSQL
      planName: name,
      groupPlan: false,
      enabled: true,
      platform: "mobile",
      periodStartAt: "2025-01-01T08:30:00.250Z",
      periodDaysOfWeek: "2,3",
      planParallelTestLimit: 4,
    },
    days: [
      { planId: id, dayNumber: 2, dayName: "MONDAY" },
      { planId: id, dayNumber: 3, dayName: "TUESDAY" },
    ],
    resolutions: [{ planId: id, os: "android", resolution: "1080x1920", width: 1080, height: 1920 }],
    environments: [{ planId: id, environmentId: 7, occurrences: 2 }],
    scenarios: [
      { planId: id, scenarioId: 9_000_000_001, position: 0 },
      { planId: id, scenarioId: 9_000_000_002, position: 1 },
    ],
    alerts: [{ planId: id, position: 0, json: '{"type":"email"}' }],
    fetchAppFiles: [],
    mobileApps: [
      { id: 77, operatingSystem: "android", mobileAppName: "app", createdAt: "2024-05-06T07:08:09.000Z" },
    ],
    planMobileApps: [{ planId: id, operatingSystem: "android", mobileAppId: 77 }],
  };
}

export function report(id: number, planIds: number[], companyId = COMPANY): NormalizedReport {
  return {
    report: { id, companyId, reportName: `report ${id}`, enabled: true, reportHour: "not a time" },
    planIds,
    recipients: ["a@example.com", "b@example.com"],
    userRoles: ["ADMIN"],
    statuses: ["FAILED"],
    alerts: [{ reportId: id, position: 0, alertType: "EMAIL", enabled: true }],
  };
}

/** The raw JSON a plan op carries (byte-exact; the hash is just distinct per content). */
export const raw = (id: number, name: string) => `{"id":${id},"plan_name":${JSON.stringify(name)}}`;
export const hashOf = (id: number, name: string) => `h-${id}-${name}`;

export const insert = (id: number, name: string, companyId = COMPANY): SnapshotOp => ({
  op: "plan.insert",
  plan: plan(id, name, companyId),
  rawJson: raw(id, name),
  hash: hashOf(id, name),
});
export const update = (id: number, name: string): SnapshotOp => ({
  op: "plan.update",
  plan: plan(id, name),
  rawJson: raw(id, name),
  hash: hashOf(id, name),
});

export interface Applied {
  result: ApplyResult;
  /** The index read before the operations were made. */
  index: SnapshotIndex;
  /** Whether the store asked for the operations (false: it wrote nothing). */
  ran: boolean;
}

/**
 * Starts a run, reads the company's index, and applies `ops` as a snapshot taken at `at`;
 * `listed`: the plan list was complete (default true).
 */
export async function applyOps(
  store: Store,
  at: string,
  ops: (index: SnapshotIndex) => Iterable<SnapshotOp>,
  opts: {
    companyId?: number;
    reportIds?: number[];
    signal?: AbortSignal;
    status?: RunEnd["status"];
    listed?: boolean;
    /** Changes made between reading the index and applying (another writer). */
    meanwhile?: () => Promise<unknown>;
  } = {},
): Promise<Applied & { runId: number }> {
  const companyId = opts.companyId ?? COMPANY;
  const runId = await store.runs.start({
    companyId,
    trigger: "test",
    startedAt: at,
    owner: { host: "h", pid: 1 },
  });
  const index = await store.snapshots.index(companyId, opts.reportIds ?? []);
  await opts.meanwhile?.();
  let ran = false;
  const result = await store.snapshots.apply(
    { companyId, runId, startedAt: at, generation: index.generation, finishedAt: () => at },
    (function* () {
      ran = true;
      yield* ops(index);
      return {
        run: { status: opts.status ?? "succeeded", counts: emptyCounts(), error: null },
        plansListed: opts.listed ?? true,
        plansSeen: true,
        rejections: (opts.status ?? "succeeded") !== "failed",
      };
    })(),
    opts.signal,
  );
  return { result, index, runId, ran };
}
