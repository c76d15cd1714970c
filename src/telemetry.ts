/**
 * What the pipeline tells the outside world besides logs: counts and durations that the
 * daemon exposes as Prometheus metrics (src/metrics.ts implements this). Every stage takes a
 * Telemetry in its deps; the one-shot commands pass `noTelemetry`.
 */
import type { NewSchemaChange } from "./observed/types.js";

/** What became of the records of one sync run. */
export type RecordOutcome = "inserted" | "updated" | "unchanged" | "deleted" | "rejected";

/** How a company's sync run ended. */
export type SyncOutcome = "succeeded" | "partial" | "failed" | "superseded" | "cancelled" | "skipped";

export interface Telemetry {
  /** One attempt of a request to the service: its HTTP status, or "error" without one. */
  httpRequest(operation: string, status: number | "error"): void;
  /** A request is sent again after a failure (5xx, timeout, reset). */
  httpRetry(operation: string): void;
  /** A 429 was waited out. */
  rateLimitWait(operation: string, seconds: number): void;
  /** A company's sync run ended. */
  syncFinished(
    companyId: number,
    outcome: SyncOutcome,
    durationSeconds: number,
    records: Record<RecordOutcome, number>,
  ): void;
  /** A create attempt ended: created, exists, failed (with its reason code) or retry (with the error code). */
  pushOutcome(outcome: "created" | "exists" | "failed" | "retry", code: string | null): void;
  /** A sync run found the service's schema changed (drift): every change it recorded, in one call. */
  schemaChanged(companyId: number, runId: number, changes: readonly SchemaChangeNote[]): void;
}

/** One change a run recorded (schema_changes), as telemetry hears of it. */
export type SchemaChangeNote = NewSchemaChange;

export const noTelemetry: Telemetry = {
  httpRequest() {},
  httpRetry() {},
  rateLimitWait() {},
  syncFinished() {},
  pushOutcome() {},
  schemaChanged() {},
};
