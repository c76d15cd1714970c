/**
 * Deterministic scheduled reports (seed 2.2). Every report's plan_id_list names at least one
 * plan the plan list never returns (a "deleted" plan id, sometimes another company's plan),
 * because the real service keeps such links and clients must show them, not drop them.
 */
import type { CompanyLayout } from "./layout.js";
import type { Rng } from "./prng.js";

export type ReportObject = Record<string, unknown>;

const NAMES = [
  "Daily smoke summary",
  "Haftalık Özet Raporu",
  "Rapport d'exécution hebdomadaire",
  "Release readiness",
] as const;
const ROLES = [
  "ROLE_REPORT",
  "ROLE_NEW_USER",
  "ROLE_ADMIN",
  "ROLE_CHANGE_USER",
  "ROLE_USER",
  "ROLE_NEW_COMPANY_ADMIN",
  "ROLE_RUN_TEST",
  "ROLE_COMPANY_ADMIN",
  "ROLE_INTEGRATION",
] as const;
const RECIPIENTS = ["qa-lead@example.com", "dev-team@example.com", "müdür@example.com.tr", "ops@example.org"];
// 2024-01-01T00:00:00Z; report windows fall in 2024-2025 like the documented example.
const BASE_MS = 1_704_067_200_000;
const DAY_MS = 86_400_000;

/** ISO 8601 UTC with whole seconds: "2025-02-06T12:51:07Z". */
function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function planIds(rng: Rng, layout: CompanyLayout, r: number, foreignPlanId: number | undefined): number[] {
  const own = new Set<number>();
  const want = Math.min(layout.planCount, rng.int(1, 5));
  while (own.size < want) own.add(layout.firstPlanId + rng.int(0, layout.planCount - 1));
  const ids = [...own].sort((a, b) => a - b);
  ids.push(layout.deletedPlanIds[r % layout.deletedPlanIds.length] ?? layout.firstPlanId - 1);
  if (foreignPlanId !== undefined && r % 2 === 0) ids.push(foreignPlanId);
  return ids;
}

/** Report number r (0-based) of the layout's company; foreignPlanId is a plan of another company. */
export function generateReport(
  rng: Rng,
  layout: CompanyLayout,
  r: number,
  foreignPlanId: number | undefined,
): ReportObject {
  const start = BASE_MS + rng.int(0, 400) * DAY_MS + rng.int(0, 86_399) * 1000;
  const name = rng.pick(NAMES);
  const recipients = rng.subset(RECIPIENTS, rng.int(1, 3));
  return {
    id: layout.reportIds[r],
    report_name: name,
    content_mail: `<html><body><p>Merhaba,</p><p>Summary of <b>${name}</b> for company ${layout.id}.</p></body></html>`,
    user_roles: rng.subset(ROLES, rng.int(1, 4)),
    enabled: rng.chance(0.8),
    frequency: rng.pick(["DAILY", "WEEKLY"]),
    created_user: layout.username,
    status: ["SUCCESS"],
    usage_gauge: rng.chance(0.5),
    report_hour: isoSeconds(start),
    plan_id_list: planIds(rng, layout, r, foreignPlanId),
    start_date: isoSeconds(start),
    end_date: isoSeconds(start + rng.int(30, 365) * DAY_MS),
    email_list: recipients,
    alerts: Array.from({ length: rng.int(0, 2) }, () => ({
      alert_type: "EMAIL",
      alert_sending_status: "EVERY_TEST",
      target: rng.pick(recipients),
      enabled: rng.chance(0.8),
      unsubscribe_link_eliminated: rng.chance(0.3),
    })),
  };
}
