/**
 * Builds one company's generated data set. Each company draws from its own seeded streams,
 * so its data does not change when --companies or another company's size changes.
 */
import { JsonList } from "./json-list.js";
import type { CompanyLayout } from "./layout.js";
import { buildMobileAppPool } from "./mobile-apps.js";
import { generatePlan } from "./plans.js";
import { deriveSeed, Rng } from "./prng.js";
import { generateReport } from "./reports.js";

export interface GeneratedCompany {
  plans: JsonList;
  reports: { id: number; json: string }[];
}

/** `foreignPlanId` is a plan of another company, used as a cross-company dangling link. */
export function generateCompany(
  layout: CompanyLayout,
  seed: number,
  foreignPlanId: number | undefined,
): GeneratedCompany {
  const planRng = new Rng(deriveSeed(seed, layout.index * 2));
  const ctx = { rng: planRng, layout, apps: buildMobileAppPool(planRng, layout.firstAppId) };
  const plans = new JsonList();
  for (let i = 0; i < layout.planCount; i++)
    plans.set(layout.firstPlanId + i, JSON.stringify(generatePlan(ctx, i)));

  const reportRng = new Rng(deriveSeed(seed, layout.index * 2 + 1));
  const reports = layout.reportIds.map((id, r) => ({
    id,
    json: JSON.stringify(generateReport(reportRng, layout, r, foreignPlanId)),
  }));
  return { plans, reports };
}
