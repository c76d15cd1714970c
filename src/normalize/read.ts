/**
 * The one reader of the service's records: one element of the plan list, or one scheduled
 * report, as received (bytes or text), to its rows or a one-line reason why not. Pure and
 * total: whatever the input (garbage, wrong types, an id past 2^53, nesting deep enough to
 * overflow the stack, lone surrogates), the answer is a value, never a throw, so one bad record
 * can only ever reject itself.
 */
import type { WirePlan, WireReport } from "../wire/schemas.js";
import { normalizePlan } from "./plan.js";
import { idOf, parseJson } from "./record.js";
import { normalizeReport } from "./report.js";
import type { NormalizedPlan, NormalizedReport } from "./types.js";
import { checkPlan, checkReport } from "./validate.js";

/** A record read: its rows, or the reason it was rejected (with its id when it has a usable one). */
export type RecordRead<T, W> =
  | { ok: true; id: number; wire: W; normalized: T; text: string }
  | { ok: false; id: number | null; reason: string; text: string };

export type PlanRead = RecordRead<NormalizedPlan, WirePlan>;
export type ReportRead = RecordRead<NormalizedReport, WireReport>;

/** A plan of GET /api/plans (one element of the list). */
export function readPlan(input: string | Uint8Array): PlanRead {
  return readRecord(input, "plan", checkPlan, (wire: WirePlan) => normalizePlan(wire));
}

/** A scheduled report, fetched for `companyId` (the record does not carry its company). */
export function readReport(input: string | Uint8Array, companyId: number): ReportRead {
  return readRecord(input, "report", checkReport, (wire: WireReport) => normalizeReport(wire, companyId));
}

const decoder = new TextDecoder();

function readRecord<W extends { id: number }, T extends object>(
  input: string | Uint8Array,
  kind: string,
  check: (value: unknown) => string | null,
  normalize: (wire: W) => T,
): RecordRead<T, W> {
  let id: number | null = null;
  let text = "";
  try {
    // Invalid UTF-8 becomes U+FFFD here: the text is always well-formed.
    text = typeof input === "string" ? input : decoder.decode(input);
    const parsed = parseJson(text);
    if (!parsed.ok) return { ok: false, id: null, reason: parsed.reason, text };
    id = idOf(parsed.value);
    const problem = check(parsed.value);
    if (problem !== null) return { ok: false, id, reason: wellFormed(problem), text };
    const wire = parsed.value as W;
    const normalized = normalize(wire);
    if (mayHoldLoneSurrogates(text)) makeWellFormed(normalized);
    return { ok: true, id: wire.id, wire, normalized, text };
  } catch (err) {
    // Not expected once the checks passed; a safety net, so that no record can fail a sync.
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      id,
      reason: wellFormed(`the ${kind} could not be read: ${message || "unknown error"}`),
      text,
    };
  }
}

/**
 * A lone surrogate can only come from a \uD800-\uDFFF escape in the JSON text (decoded bytes are
 * always well-formed), also inside a JSON string held in a string (mobile_app_metadata).
 */
function mayHoldLoneSurrogates(text: string): boolean {
  return text.includes("\\ud") || text.includes("\\uD");
}

function wellFormed(s: string): string {
  return s.isWellFormed() ? s : s.toWellFormed();
}

/**
 * Replaces lone surrogates in every string of the rows by U+FFFD: PostgreSQL's text cannot hold
 * them and SQLite would store invalid UTF-8, so both stores keep the same replacement. The raw
 * JSON keeps the original escape.
 */
function makeWellFormed(rows: object): void {
  const fix = (holder: Record<string | number, unknown>, depth: number) => {
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      if (typeof v === "string") holder[key] = wellFormed(v);
      else if (typeof v === "object" && v !== null && depth < 3) fix(v as Record<string, unknown>, depth + 1);
    }
  };
  fix(rows as Record<string, unknown>, 0);
}
