/**
 * Rows as both adapters read them (camelCase column aliases) to the port's shapes: one mapping,
 * whatever the dialect.
 */
import type { syncRuns } from "../tables/sqlite/index.js";
import type { SendableRow } from "./port-outbox.js";
import type { CompanyRunState, OpenRun } from "./port-runs.js";

type Run = typeof syncRuns.$inferSelect;

/** A company's latest finished run (its columns null when it has none) and its state. */
export type CompanyStateRow = { companyId: number } & {
  [K in
    | "id"
    | "status"
    | "startedAt"
    | "fetched"
    | "inserted"
    | "updated"
    | "unchanged"
    | "deleted"
    | "rejected"]: Run[K] | null;
} & Pick<Run, "finishedAt" | "error"> & {
    lastSuccessAt: string | null;
    appliedStartedAt: string | null;
    alertState: string | null;
  };

export function companyStateOf(r: CompanyStateRow): CompanyRunState {
  return {
    companyId: r.companyId,
    lastRun:
      r.id !== null && r.status !== null && r.startedAt !== null
        ? {
            id: r.id,
            status: r.status,
            startedAt: r.startedAt,
            finishedAt: r.finishedAt,
            counts: {
              fetched: r.fetched ?? 0,
              inserted: r.inserted ?? 0,
              updated: r.updated ?? 0,
              unchanged: r.unchanged ?? 0,
              deleted: r.deleted ?? 0,
              rejected: r.rejected ?? 0,
            },
            error: r.error,
          }
        : null,
    lastSuccessAt: r.lastSuccessAt,
    appliedStartedAt: r.appliedStartedAt,
    alertState: r.alertState,
  };
}

export type OpenRunRow = Pick<
  Run,
  "id" | "companyId" | "startedAt" | "heartbeatAt" | "ownerHost" | "ownerPid"
>;

export function openRunOf(r: OpenRunRow): OpenRun {
  return {
    id: r.id,
    companyId: r.companyId,
    startedAt: r.startedAt,
    heartbeatAt: r.heartbeatAt,
    owner: r.ownerHost !== null && r.ownerPid !== null ? { host: r.ownerHost, pid: r.ownerPid } : null,
  };
}

/**
 * A create job's row joined with its parent (the parent's columns prefixed `p`, null without
 * one), booleans already booleans: each adapter reads its dialect's form and converts.
 */
export interface SendableJoin extends Omit<SendableRow, "parent"> {
  pStatus: SendableRow["status"] | null;
  pScenarioId: number | null;
  pScenarioJson: string | null;
  pPayloadJson: string | null;
}

export function sendableOf(r: SendableJoin): SendableRow {
  return {
    status: r.status,
    companyId: r.companyId,
    projectId: r.projectId,
    payloadJson: r.payloadJson,
    parentKey: r.parentKey,
    attempts: r.attempts,
    inFlight: r.inFlight,
    uncertain: r.uncertain,
    errorCode: r.errorCode,
    parent:
      r.parentKey !== null && r.pStatus !== null
        ? {
            key: r.parentKey,
            status: r.pStatus,
            scenarioId: r.pScenarioId,
            scenarioJson: r.pScenarioJson,
            payloadJson: r.pPayloadJson as string,
          }
        : null,
  };
}
