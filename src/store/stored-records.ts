/**
 * Reading a company's stored JSON texts, for both dialects, before a snapshot's transaction
 * (nothing is asked of the store once it writes): `live` its live records, `rejected` what its
 * newest sync rejected (with an id and a text), or the live records among given ids. Pages of
 * plans, then of reports, each ordered by id.
 */
import type { StoredRecord, StoredSelection } from "./port-snapshot.js";

const PAGE = 2000;

type Entity = StoredRecord["entity"];
const TABLE = { plan: "plans", scheduled_report: "scheduled_reports" } as const;

function rejected(entity: Entity): string {
  return `SELECT r.entity_id AS id, r.raw_json AS raw FROM rejected_records r
           JOIN sync_state s ON s.company_id = r.company_id AND s.rejections_run_id = r.last_run_id
           WHERE r.company_id = :company AND r.entity = '${entity}' AND r.entity_id IS NOT NULL
             AND r.raw_json IS NOT NULL AND r.entity_id > :after
           ORDER BY r.entity_id LIMIT :limit`;
}

const live = (entity: Entity, idsIn = "") =>
  `SELECT id, raw_json AS raw FROM ${TABLE[entity]}
     WHERE company_id = :company AND deleted_at IS NULL AND id > :after ${idsIn} ORDER BY id LIMIT :limit`;

type Row = { id: number | string; raw: string };

/** Runs one query (`:name` placeholders) and answers its rows. */
export type PageQuery = (sql: string, params: Record<string, unknown>) => Promise<Row[]>;

/**
 * Visits the selected records. `idsIn` is the dialect's `AND id IN (:ids)` (SQLite binds a
 * JSON array, PostgreSQL an array): `toIds` turns a list of ids into the value it binds.
 */
export async function readStored(
  query: PageQuery,
  dialect: { idsIn: string; toIds: (ids: readonly number[]) => unknown },
  companyId: number,
  which: StoredSelection,
  visit: (r: StoredRecord) => void,
): Promise<void> {
  for (const entity of ["plan", "scheduled_report"] as const) {
    if (which === "live" || which === "rejected") {
      const sql = which === "live" ? live(entity) : rejected(entity);
      await pages(query, sql, { company: companyId }, entity, visit);
      continue;
    }
    const ids = [...(entity === "plan" ? which.plans : which.reports)].sort((a, b) => a - b);
    const sql = live(entity, dialect.idsIn);
    for (let i = 0; i < ids.length; i += PAGE) {
      const chunk = ids.slice(i, i + PAGE);
      await pages(query, sql, { company: companyId, ids: dialect.toIds(chunk) }, entity, visit);
    }
  }
}

async function pages(
  query: PageQuery,
  sql: string,
  params: Record<string, unknown>,
  entity: Entity,
  visit: (r: StoredRecord) => void,
): Promise<void> {
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = await query(sql, { ...params, after, limit: PAGE });
    for (const r of rows) visit({ entity, id: Number(r.id), rawJson: r.raw });
    if (rows.length < PAGE) return;
    after = Number(rows.at(-1)?.id);
  }
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
