/**
 * The raw pipeline into SQLite, bench:sync's baseline: what a person's own script would do to
 * mirror the plans, and no more. Timed from the request to the COMMIT: download the list whole,
 * JSON.parse it, and for each plan keep its JSON text (JSON.stringify), map it to the same rows
 * (normalizePlan, no validation) and insert them with prepared statements, one transaction, no
 * history, no hashing, no run record. Same schema (tas-sync's migrations), same pragmas.
 */
import { request } from "undici";
import { normalizePlan } from "../../src/normalize/plan.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import type { PlanRowSet } from "../../src/tables/index.js";
import type { WirePlan } from "../../src/wire/schemas.js";
import { cpuSince, peakRssMb } from "../support.js";
import type { ChildInput, ChildResult } from "./child.js";

const b = (v: boolean | null | undefined) => (v == null ? null : v ? 1 : 0);

export async function rawSqlite(input: ChildInput): Promise<ChildResult> {
  const store = openSqliteStore(input.database as string);
  const db = store.sqlite;
  const insert = (table: string, columns: string) =>
    db.prepare(`INSERT INTO ${table} (${columns}) VALUES (${columns.split(",").map(() => "?")})`);
  const plans = insert(
    "plans",
    "id,company_id,project_id,plan_name,group_plan,description,enabled,plan_parallel_test_limit,alerts_enabled,failed_test_retry_count,screen_shot_type,video_enabled,performance_data_enabled,clear_app_data,platform,period_type,period_start_at,period_end_at,period_once_at,period_repeat_minutes,period_days_of_week,raw_json,content_hash,first_seen_at,seen_at",
  );
  const days = insert("plan_days_of_week", "plan_id,day_number,day_name");
  const resolutions = insert("plan_resolutions", "plan_id,os,resolution,width,height");
  const environments = insert("plan_environments", "plan_id,environment_id,occurrences");
  const scenarios = insert("plan_scenarios", "plan_id,scenario_id,position");
  const alerts = insert("plan_alerts", "plan_id,position,json");
  const files = insert("plan_fetch_app_files", "plan_id,position,json");
  const planApps = insert("plan_mobile_apps", "plan_id,operating_system,mobile_app_id");
  const apps = db.prepare(
    `INSERT OR REPLACE INTO mobile_apps (id,operating_system,mobile_app_name,mobile_app_hash,created_at,metadata_json,metadata_error,app_id,display_name,version_name,version_code,min_os_version,target_sdk_version)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const write = (n: PlanRowSet, text: string, now: string) => {
    const p = n.plan;
    plans.run(
      p.id,
      p.companyId,
      p.projectId,
      p.planName,
      b(p.groupPlan),
      p.description,
      b(p.enabled),
      p.planParallelTestLimit,
      b(p.alertsEnabled),
      p.failedTestRetryCount,
      p.screenShotType,
      b(p.videoEnabled),
      b(p.performanceDataEnabled),
      b(p.clearAppData),
      p.platform,
      p.periodType,
      p.periodStartAt,
      p.periodEndAt,
      p.periodOnceAt,
      p.periodRepeatMinutes,
      p.periodDaysOfWeek,
      text,
      "",
      now,
      now,
    );
    for (const r of n.days) days.run(r.planId, r.dayNumber, r.dayName);
    for (const r of n.resolutions) resolutions.run(r.planId, r.os, r.resolution, r.width, r.height);
    for (const r of n.environments) environments.run(r.planId, r.environmentId, r.occurrences);
    for (const r of n.scenarios) scenarios.run(r.planId, r.scenarioId, r.position);
    for (const r of n.alerts) alerts.run(r.planId, r.position, r.json);
    for (const r of n.fetchAppFiles) files.run(r.planId, r.position, r.json);
    for (const a of n.mobileApps)
      apps.run(
        a.id,
        a.operatingSystem,
        a.mobileAppName,
        a.mobileAppHash,
        a.createdAt,
        a.metadataJson,
        a.metadataError,
        a.appId,
        a.displayName,
        a.versionName,
        a.versionCode,
        a.minOsVersion,
        a.targetSdkVersion,
      );
    for (const r of n.planMobileApps) planApps.run(r.planId, r.operatingSystem, r.mobileAppId);
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await request(`${input.baseUrl}/api/plans`, {
    headers: { authorization: `Bearer ${input.token}` },
  });
  const list = JSON.parse(await res.body.text()) as WirePlan[];
  const now = new Date().toISOString();
  db.exec("BEGIN");
  for (const item of list) write(normalizePlan(item), JSON.stringify(item), now);
  db.exec("COMMIT");
  const ms = performance.now() - t0;
  const cpuMs = cpuSince(cpu0);
  await store.close();
  return { ms, cpuMs, plans: list.length, rssMb: peakRssMb() };
}
