/**
 * One record's JSON text to its validated wire object and its rows, or a one-line reason why
 * not. Pure, and total: whatever the text (garbage, wrong types, nesting deep enough to
 * overflow the stack), the answer is a value, never a throw, so one bad record can only ever
 * reject itself.
 */
import type { z } from "zod";
import { planSchema, scheduledReportSchema, type WirePlan, type WireReport } from "../wire/schemas.js";
import { normalizePlan } from "./plan.js";
import { describeIssues, idOf, parseJson } from "./record.js";
import { normalizeReport } from "./report.js";
import type { NormalizedPlan, NormalizedReport } from "./types.js";

/** A record read: its rows, or the reason it was rejected (with its id when it has a usable one). */
export type RecordRead<T, W> =
  | { ok: true; id: number; wire: W; normalized: T }
  | { ok: false; id: number | null; reason: string };

export type PlanRead = RecordRead<NormalizedPlan, WirePlan>;
export type ReportRead = RecordRead<NormalizedReport, WireReport>;

/** A plan of GET /api/plans (one element of the list, as text). */
export function readPlan(text: string): PlanRead {
  return readRecord(text, planSchema, "plan", normalizePlan);
}

/** A scheduled report, fetched for `companyId` (the record does not carry its company). */
export function readReport(text: string, companyId: number): ReportRead {
  return readRecord(text, scheduledReportSchema, "report", (wire) => normalizeReport(wire, companyId));
}

function readRecord<S extends z.ZodType<{ id: number }>, T>(
  text: string,
  schema: S,
  kind: string,
  normalize: (wire: z.infer<S>) => T,
): RecordRead<T, z.infer<S>> {
  let id: number | null = null;
  try {
    const parsed = parseJson(text);
    if (!parsed.ok) return { ok: false, id: null, reason: parsed.reason };
    id = idOf(parsed.value);
    const result = schema.safeParse(parsed.value);
    if (!result.success) return { ok: false, id, reason: describeIssues(result.error) };
    const wire = result.data;
    return { ok: true, id: wire.id, wire, normalized: normalize(wire) };
  } catch (err) {
    // Not expected from valid JSON; one known way is an item nested so deeply that
    // JSON.stringify (which keeps unknown items as text) overflows the stack.
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, id, reason: `the ${kind} could not be read: ${message || "unknown error"}` };
  }
}
