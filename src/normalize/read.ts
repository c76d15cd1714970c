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
    if (!parsed.ok) return { ok: false, id: null, reason: wellFormed(parsed.reason), text };
    id = idOf(parsed.value);
    const problem = check(parsed.value);
    if (problem !== null) return { ok: false, id, reason: wellFormed(problem), text };
    const wire = parsed.value as W;
    const fix = mayHoldLoneSurrogates(text);
    // Before normalizing: keys that become equal (two lone surrogates) then meet its dedupe.
    if (fix) makeWellFormed(wire);
    const normalized = normalize(wire);
    // After too: strings the normalizer makes (a mobile app's metadata, read from its own JSON).
    if (fix) makeWellFormed(normalized);
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
 * Replaces lone surrogates by U+FFFD in every string and key of a JSON value, in place and
 * without recursion (the value may nest deep). PostgreSQL's text cannot hold them and SQLite
 * would store invalid UTF-8, so both stores keep the same replacement; the raw JSON keeps the
 * original escape.
 */
function makeWellFormed(value: object): void {
  const stack: object[] = [value];
  for (let holder = stack.pop(); holder !== undefined; holder = stack.pop()) {
    const h = holder as Record<string, unknown>;
    for (const key of Object.keys(h)) {
      const v = h[key];
      const fixed = typeof v === "string" ? wellFormed(v) : v;
      if (typeof v === "object" && v !== null) stack.push(v);
      if (Array.isArray(h) || key.isWellFormed()) {
        if (fixed !== v) h[key] = fixed;
        continue;
      }
      delete h[key];
      h[key.toWellFormed()] = fixed;
    }
  }
}
