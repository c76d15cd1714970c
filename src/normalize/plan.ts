/** A wire plan (seed 2.3) to the `plans` row and its child rows. Hot path: one call per plan. */

import type {
  MobileAppRow,
  PlanDayRow,
  PlanEnvironmentRow,
  PlanJsonItemRow,
  PlanMobileAppRow,
  PlanResolutionRow,
  PlanScenarioRow,
} from "../tables/index.js";
import type { WireMobileApp, WirePlan } from "../wire/schemas.js";
import { DAY_NAMES, daysOfWeekMask } from "./days.js";
import { normalizeMobileApp } from "./mobile-app.js";
import { parseResolution } from "./resolution.js";
import { epochMsToIso } from "./time.js";
import type { NormalizedPlan } from "./types.js";

function dayRows(planId: number, daysOfWeek: string | null | undefined): PlanDayRow[] {
  const mask = daysOfWeekMask(daysOfWeek);
  const out: PlanDayRow[] = [];
  for (let n = 1; n <= 7; n++) {
    if (mask & (1 << n)) out.push({ planId, dayNumber: n, dayName: DAY_NAMES[n] ?? "" });
  }
  return out;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function resolutionRows(planId: number, map: Record<string, string> | null | undefined): PlanResolutionRow[] {
  const out: PlanResolutionRow[] = [];
  if (!map) return out;
  // Code-unit order, not localeCompare: the same on every machine.
  for (const os of Object.keys(map).sort(byCodeUnit)) {
    const resolution = map[os] ?? "";
    const { width, height } = parseResolution(resolution);
    out.push({ planId, os, resolution, width, height });
  }
  return out;
}

// Above this many items a Map is cheaper than scanning the rows found so far.
const ENV_SCAN_LIMIT = 32;

/** One row per distinct environment id, in order of first appearance, with its count. */
function environmentRows(
  planId: number,
  envs: readonly { id: number }[] | null | undefined,
): PlanEnvironmentRow[] {
  const out: PlanEnvironmentRow[] = [];
  if (!envs || envs.length === 0) return out;
  const index = envs.length > ENV_SCAN_LIMIT ? new Map<number, PlanEnvironmentRow>() : null;
  for (const env of envs) {
    const id = env.id;
    const row = index ? index.get(id) : out.find((r) => r.environmentId === id);
    if (row) {
      row.occurrences++;
      continue;
    }
    const created = { planId, environmentId: id, occurrences: 1 };
    out.push(created);
    index?.set(id, created);
  }
  return out;
}

function scenarioRows(planId: number, ids: readonly number[] | null | undefined): PlanScenarioRow[] {
  const out: PlanScenarioRow[] = [];
  if (!ids) return out;
  let position = 0;
  for (const scenarioId of ids) out.push({ planId, scenarioId, position: position++ });
  return out;
}

/** Items whose fields the contract does not show are stored as their JSON text. */
function jsonRows(planId: number, items: readonly unknown[] | null | undefined): PlanJsonItemRow[] {
  const out: PlanJsonItemRow[] = [];
  if (!items) return out;
  for (let i = 0; i < items.length; i++) {
    out.push({ planId, position: i, json: JSON.stringify(items[i]) ?? "null" });
  }
  return out;
}

function addMobileApp(
  n: NormalizedPlan,
  planId: number,
  app: WireMobileApp | null | undefined,
  slot: "ANDROID" | "IOS",
): void {
  if (!app) return;
  n.planMobileApps.push({ planId, operatingSystem: slot, mobileAppId: app.id });
  if (!n.mobileApps.some((a) => a.id === app.id)) n.mobileApps.push(normalizeMobileApp(app));
}

/** Normalize one wire plan. Pure; enum values are kept as they come. */
export function normalizePlan(wire: WirePlan): NormalizedPlan {
  const planId = wire.id;
  const period = wire.period;
  const android = wire.selected_android_mobile_app;
  const ios = wire.selected_ios_mobile_app;
  const isMobile =
    android != null || ios != null || wire.clear_app_data != null || wire.fetch_app_files != null;

  const n: NormalizedPlan = {
    plan: {
      id: planId,
      companyId: wire.company_id,
      projectId: wire.project_id ?? null,
      planName: wire.plan_name ?? null,
      groupPlan: wire.group_plan ?? null,
      description: wire.description ?? null,
      enabled: wire.enabled ?? null,
      planParallelTestLimit: wire.plan_parallel_test_limit ?? null,
      alertsEnabled: wire.alerts_enabled ?? null,
      failedTestRetryCount: wire.failed_test_retry_count ?? null,
      screenShotType: wire.screen_shot_type ?? null,
      videoEnabled: wire.video_enabled ?? null,
      performanceDataEnabled: wire.performance_data_enabled ?? null,
      clearAppData: wire.clear_app_data ?? null,
      platform: isMobile ? "mobile" : "desktop",
      periodType: period?.period_type ?? null,
      periodStartAt: epochMsToIso(period?.start_date),
      periodEndAt: epochMsToIso(period?.end_date),
      periodOnceAt: epochMsToIso(period?.once_date),
      periodRepeatMinutes: period?.repeat_period ?? null,
      periodDaysOfWeek: period?.days_of_week ?? null,
    },
    days: dayRows(planId, period?.days_of_week),
    resolutions: resolutionRows(planId, wire.resolutions),
    environments: environmentRows(planId, wire.environments),
    scenarios: scenarioRows(planId, wire.scenarios),
    alerts: jsonRows(planId, wire.alerts),
    fetchAppFiles: jsonRows(planId, wire.fetch_app_files),
    mobileApps: [] as MobileAppRow[],
    planMobileApps: [] as PlanMobileAppRow[],
  };
  addMobileApp(n, planId, android, "ANDROID");
  addMobileApp(n, planId, ios, "IOS");
  return n;
}
