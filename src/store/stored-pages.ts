/**
 * The SQL of a "stored" snapshot operation, for both dialects: a page of plans, then of
 * reports, ordered by id. `replaced`: versions this run closed (valid_to is its start) of the
 * company's records, with the text they had; `live`: the company's live records.
 */
import type { StoredKey, StoredRecord } from "./port-snapshot.js";

/** The records of `entity` the company's newest sync (not a replay) rejected, with their text. */
function rejected(entity: "plan" | "scheduled_report"): string {
  return `SELECT r.entity_id AS id, r.raw_json AS raw FROM rejected_records r
           JOIN sync_state s ON s.company_id = r.company_id AND s.rejections_run_id = r.last_run_id
           WHERE r.company_id = :company AND r.entity = '${entity}' AND r.entity_id IS NOT NULL
             AND r.raw_json IS NOT NULL AND r.entity_id > :after
           ORDER BY r.entity_id LIMIT :limit`;
}

const SOURCES = {
  replaced: {
    plan: `SELECT v.id AS id, coalesce(v.raw_json, r.raw_json) AS raw FROM plan_versions v JOIN plans r ON r.id = v.id
           WHERE v.valid_to = :at AND r.company_id = :company AND v.id > :after ORDER BY v.id LIMIT :limit`,
    scheduled_report: `SELECT v.id AS id, coalesce(v.raw_json, r.raw_json) AS raw FROM report_versions v
           JOIN scheduled_reports r ON r.id = v.id
           WHERE v.valid_to = :at AND r.company_id = :company AND v.id > :after ORDER BY v.id LIMIT :limit`,
  },
  rejected: {
    plan: rejected("plan"),
    scheduled_report: rejected("scheduled_report"),
  },
  live: {
    plan: `SELECT id, raw_json AS raw FROM plans WHERE company_id = :company AND deleted_at IS NULL AND id > :after
           ORDER BY id LIMIT :limit`,
    scheduled_report: `SELECT id, raw_json AS raw FROM scheduled_reports
           WHERE company_id = :company AND deleted_at IS NULL AND id > :after ORDER BY id LIMIT :limit`,
  },
} as const;

type Row = { id: number | string; raw: string };
export interface PageQuery {
  sql: string;
  params: { at: string; company: number; after: number; limit: number };
}

/**
 * One page, as the queries to run: the rest of the plans after `after`, then reports while the
 * page has room. Yields each query and takes its rows back, so that SQLite runs it at once and
 * PostgreSQL awaits it.
 */
export function* storedPage(
  of: "replaced" | "live" | "rejected",
  ctx: { at: string; company: number },
  after: StoredKey | null,
  limit: number,
): Generator<PageQuery, StoredRecord[], Row[]> {
  const out: StoredRecord[] = [];
  for (const entity of ["plan", "scheduled_report"] as const) {
    if (after?.entity === "scheduled_report" && entity === "plan") continue;
    const from = after?.entity === entity ? after.id : Number.MIN_SAFE_INTEGER;
    const rows = yield {
      sql: SOURCES[of][entity],
      params: { ...ctx, after: from, limit: limit - out.length },
    };
    for (const r of rows) out.push({ entity, id: Number(r.id), rawJson: r.raw });
    if (out.length >= limit) break;
  }
  return out;
}

/** `:name` placeholders as PostgreSQL's `$n`, with the values in that order. */
export function numbered(sql: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const text = sql.replace(/:(\w+)/g, (_, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text, values: names.map((n) => params[n]) };
}
