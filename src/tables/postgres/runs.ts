/** Sync run records: one row per company sync, and what it rejected or could not fetch. */
import { sql } from "drizzle-orm";
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { id, serialId, ts } from "./columns.js";

export const syncRuns = pgTable(
  "sync_runs",
  {
    id: serialId("id"),
    companyId: id("company_id").notNull(),
    trigger: text("trigger").notNull(),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at"),
    status: text("status", {
      enum: ["running", "succeeded", "partial", "failed", "superseded", "cancelled"],
    }).notNull(),
    fetched: integer("fetched").notNull().default(0),
    inserted: integer("inserted").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    unchanged: integer("unchanged").notNull().default(0),
    deleted: integer("deleted").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    error: text("error"),
    /** The process that ran it (host and pid), and when it last said it was alive. */
    ownerHost: text("owner_host"),
    ownerPid: integer("owner_pid"),
    heartbeatAt: ts("heartbeat_at"),
  },
  (t) => [
    index("sync_runs_company_idx").on(t.companyId, t.startedAt),
    // The questions the daemon and status ask of run history, each answered from an index
    // however many runs are kept (test/integration/run-history-plans.test.ts reads the plans):
    // a company's newest run, its newest success, and the runs still marked running.
    index("sync_runs_company_run_idx").on(t.companyId, t.id),
    index("sync_runs_success_idx")
      .on(t.companyId, t.startedAt)
      .where(sql`status IN ('succeeded', 'partial') AND trigger <> 'replay'`),
    index("sync_runs_running_idx").on(t.id).where(sql`status = 'running'`),
  ],
);

/**
 * One row per company: who may sync it now (a lease that its holder renews), the newest
 * snapshot applied (a snapshot fetched earlier than that one is never applied), and the state
 * last alerted (so that of several daemons, one sends each alert).
 */
export const syncState = pgTable("sync_state", {
  companyId: id("company_id").primaryKey(),
  leaseToken: text("lease_token"),
  leaseHost: text("lease_host"),
  leasePid: integer("lease_pid"),
  leaseExpiresAt: ts("lease_expires_at"),
  appliedStartedAt: ts("applied_started_at"),
  appliedRunId: id("applied_run_id"),
  /** The start of the newest run whose plan list was complete (deletions applied). */
  plansListedAt: ts("plans_listed_at"),
  /** The start of the newest run whose plan list was applied, complete or not (see the SQLite schema). */
  plansSeenAt: ts("plans_seen_at"),
  /** The newest sync (not a replay) that recorded what it rejected (see the SQLite schema). */
  rejectionsRunId: id("rejections_run_id"),
  /** Bumped by every write to the company's plans or reports (see the SQLite schema). */
  writeGeneration: id("write_generation").notNull().default(0),
  /** What the daemons last alerted about this company (ok, failing, stale, failing+stale). */
  alertState: text("alert_state"),
  alertChangedAt: ts("alert_changed_at"),
  /** The newest finished run and the start of the newest success (see the SQLite schema). */
  lastRunId: id("last_run_id"),
  lastSuccessAt: ts("last_success_at"),
});

/** One row per episode of a rejection (see the SQLite schema). */
export const rejectedRecords = pgTable(
  "rejected_records",
  {
    id: serialId("id"),
    companyId: id("company_id").notNull(),
    entity: text("entity", { enum: ["plan", "scheduled_report"] }).notNull(),
    entityId: id("entity_id"),
    contentHash: text("content_hash").notNull(),
    reason: text("reason").notNull(),
    firstRunId: id("first_run_id").notNull(),
    lastRunId: id("last_run_id").notNull(),
    firstSeenAt: ts("first_seen_at").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    seenRuns: integer("seen_runs").notNull().default(1),
    rawJson: text("raw_json"),
  },
  (t) => [index("rejected_records_company_run_idx").on(t.companyId, t.lastRunId)],
);

export const syncErrors = pgTable(
  "sync_errors",
  {
    id: serialId("id"),
    runId: id("run_id").notNull(),
    entity: text("entity", { enum: ["plans", "scheduled_report"] }).notNull(),
    entityId: id("entity_id"),
    code: text("code").notNull(),
    httpStatus: integer("http_status"),
    message: text("message").notNull(),
  },
  (t) => [index("sync_errors_run_idx").on(t.runId)],
);

/** Live plans missing from a plan list whose deletions were held back (see the SQLite schema). */
export const unlistedPlans = pgTable(
  "unlisted_plans",
  {
    planId: id("plan_id").primaryKey(),
    companyId: id("company_id").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    missingSince: ts("missing_since").notNull(),
  },
  (t) => [index("unlisted_plans_company_idx").on(t.companyId)],
);
