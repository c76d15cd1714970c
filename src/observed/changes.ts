/** The change log (schema_changes) for people: `schema --changes` as JSON objects or table rows (pure). */
import type { SchemaChange } from "./port.js";

export function changeJson(c: SchemaChange) {
  return {
    id: c.id,
    company_id: c.companyId,
    run_id: c.runId,
    detected_at: c.detectedAt,
    entity: c.entity,
    path: c.path,
    kind: c.kind,
    before: c.before,
    after: c.after,
    example_id: c.exampleId,
    refused: c.refused,
    acknowledged_at: c.acknowledgedAt,
  };
}

export function changeRow(c: SchemaChange): Record<string, unknown> {
  return {
    id: c.id,
    company: c.companyId,
    run: c.runId,
    detected_at: c.detectedAt,
    entity: c.entity,
    path: c.path,
    kind: c.kind,
    before: c.before ?? "",
    after: c.after ?? "",
    example: c.exampleId ?? "",
    refused: c.refused ?? "",
    acknowledged: c.acknowledgedAt ?? "open",
  };
}

/**
 * What `--since` means: a run id (a positive integer: changes of that run and later ones) or a
 * moment (`2025-03-01`, midnight UTC, or an ISO 8601 time with its zone); null when it is neither.
 */
export function parseSince(text: string): { runId: number } | { at: string } | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    return Number.isSafeInteger(n) && n > 0 ? { runId: n } : null;
  }
  const date = /^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t;
  // A time without a zone would read as local time: ambiguous on a server, so refused.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(date)) return null;
  const ms = Date.parse(date);
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Date.parse rolls 2025-02-30 over to March: a date that is not one is refused.
  if (/^\d{4}-\d{2}-\d{2}$/.test(t) && iso.slice(0, 10) !== t) return null;
  return { at: iso };
}
