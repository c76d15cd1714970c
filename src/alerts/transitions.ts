/**
 * Which alert a company's change of health calls for (pure). A company is failing (its last
 * run failed) and/or stale (no success for staleAfter); an alert goes out when either turns
 * true, and once when both are false again: one per change, never one per failed run.
 */
export type AlertEvent = "sync_failed" | "company_stale" | "company_recovered";

export interface Health {
  failing: boolean;
  stale: boolean;
}

/** The stored form of a health: "ok", "failing", "stale" or "failing+stale". */
export function healthKey(h: Health): string {
  if (h.failing && h.stale) return "failing+stale";
  if (h.failing) return "failing";
  if (h.stale) return "stale";
  return "ok";
}

/** A stored health back as flags (null: nothing alerted yet, which reads as healthy). */
function parseHealth(key: string | null): Health {
  return { failing: key?.includes("failing") ?? false, stale: key?.includes("stale") ?? false };
}

/** The events to send when the alerted health `before` (null: none yet) becomes `now`. */
export function alertsFor(before: string | null, now: Health): AlertEvent[] {
  const was = parseHealth(before);
  const events: AlertEvent[] = [];
  if (now.failing && !was.failing) events.push("sync_failed");
  if (now.stale && !was.stale) events.push("company_stale");
  if (!now.failing && !now.stale && (was.failing || was.stale)) events.push("company_recovered");
  return events;
}
