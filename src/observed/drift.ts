/**
 * The alert of a run that found the service's schema changed (pure): one message per run,
 * its changes grouped by entity and kind, each with before and after. The values in it are
 * the service's field names, types and enum values: no secret of tas-sync's is ever in them.
 */

import { CHANGE_KINDS } from "./port.js";
import { compareEntities } from "./report.js";
import type { NewSchemaChange as SchemaChangeNote } from "./types.js";

/** Changes listed per group; the rest are counted (a run may find hundreds, e.g. a new list of values). */
const LISTED_PER_GROUP = 20;

export interface DriftGroup {
  entity: string;
  kind: SchemaChangeNote["kind"];
  count: number;
  changes: {
    path: string;
    before: string | null;
    after: string | null;
    example_id: number | null;
    /** Records the run refused that show the change; null for a change of stored records. */
    refused: number | null;
  }[];
}

/** The changes by entity (in display order), then kind (added, removed, type_changed, new_value, value_gone). */
export function groupChanges(changes: readonly SchemaChangeNote[], listed = LISTED_PER_GROUP): DriftGroup[] {
  const groups = new Map<string, DriftGroup>();
  for (const c of changes) {
    const key = `${c.entity}\u0000${c.kind}`;
    let g = groups.get(key);
    if (!g) {
      g = { entity: c.entity, kind: c.kind, count: 0, changes: [] };
      groups.set(key, g);
    }
    g.count++;
    if (g.changes.length < listed)
      g.changes.push({
        path: c.path,
        before: c.before,
        after: c.after,
        example_id: c.exampleId,
        refused: c.refused ?? null,
      });
  }
  return [...groups.values()].sort(
    (a, b) =>
      compareEntities(a.entity, b.entity) || CHANGE_KINDS.indexOf(a.kind) - CHANGE_KINDS.indexOf(b.kind),
  );
}

/**
 * `company 5251, run 12: 3 schema change(s) (plan: 1 added, 1 new_value; mobile_app_metadata:ANDROID: 1 type_changed)`,
 * and `; 4 record(s) refused for them` when refused records showed some.
 */
function driftSummary(companyId: number, runId: number, groups: readonly DriftGroup[]): string {
  const total = groups.reduce((n, g) => n + g.count, 0);
  const refused = groups.reduce((n, g) => n + g.changes.reduce((m, c) => m + (c.refused ?? 0), 0), 0);
  const byEntity = new Map<string, string[]>();
  for (const g of groups) byEntity.set(g.entity, [...(byEntity.get(g.entity) ?? []), `${g.count} ${g.kind}`]);
  const parts = [...byEntity].map(([entity, kinds]) => `${entity}: ${kinds.join(", ")}`).join("; ");
  const also = refused > 0 ? `; ${refused} record(s) refused for them` : "";
  return `company ${companyId}, run ${runId}: ${total} schema change(s) (${parts})${also}`;
}

export interface DriftAlertContext {
  /** When the daemon heard of the run's changes. */
  at: Date;
  host: string;
}

/** The webhook payload of one run's changes. */
export function driftAlert(
  companyId: number,
  runId: number,
  changes: readonly SchemaChangeNote[],
  ctx: DriftAlertContext,
) {
  const groups = groupChanges(changes);
  return {
    event: "schema_changed",
    company_id: companyId,
    at: ctx.at.toISOString(),
    host: ctx.host,
    service: "tas-sync",
    run_id: runId,
    summary: driftSummary(companyId, runId, groups),
    changes: changes.length,
    groups,
    see: `tas-sync schema --changes --since ${runId} --company ${companyId}`,
  };
}
