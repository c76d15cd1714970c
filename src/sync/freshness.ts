/**
 * Is a company's mirror fresh? Stale when its last successful sync started longer ago than its
 * staleAfter (default three schedule periods). A company that never succeeded is measured from
 * `since`: the daemon's start (it gets its periods to catch up), or the epoch for `status`
 * (never synced is not fresh). Pure: the clock is passed in.
 */
import { type Config, staleAfterOf } from "../config/index.js";
import type { CompanyRunState } from "../store/port-runs.js";

export interface CompanyFreshness {
  companyId: number;
  lastSuccessAt: Date | null;
  /** The latest run ended failed (or the company never succeeded at all). */
  failing: boolean;
  stale: boolean;
  staleAfterMs: number;
  lastRun: CompanyRunState["lastRun"];
}

export function freshness(
  cfg: Config,
  states: readonly CompanyRunState[],
  now: Date,
  since: Date,
): CompanyFreshness[] {
  return states.map((s) => {
    const company = cfg.companies.find((c) => c.id === s.companyId);
    const staleAfterMs = company ? staleAfterOf(cfg, company) : cfg.sync.every * 3;
    const last = s.lastSuccessAt ? new Date(s.lastSuccessAt) : null;
    const reference = last ?? since;
    return {
      companyId: s.companyId,
      lastSuccessAt: last,
      failing: s.lastRun?.status === "failed",
      stale: now.getTime() - reference.getTime() > staleAfterMs,
      staleAfterMs,
      lastRun: s.lastRun,
    };
  });
}
