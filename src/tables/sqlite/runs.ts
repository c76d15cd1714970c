/** Sync run records: one row per company sync, and what it rejected or could not fetch. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const syncRuns = sqliteTable(
  "sync_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: integer("company_id").notNull(),
    trigger: text("trigger").notNull(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at"),
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
    heartbeatAt: text("heartbeat_at"),
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
export const syncState = sqliteTable("sync_state", {
  companyId: integer("company_id").primaryKey(),
  leaseToken: text("lease_token"),
  leaseHost: text("lease_host"),
  leasePid: integer("lease_pid"),
  leaseExpiresAt: text("lease_expires_at"),
  appliedStartedAt: text("applied_started_at"),
  appliedRunId: integer("applied_run_id"),
  /**
   * The start of the newest run whose plan list was complete (deletions applied): every plan of
   * the company still live was in that list (v_plans.last_seen_at).
   */
  plansListedAt: text("plans_listed_at"),
  /**
   * The start of the newest run whose plan list was applied, complete or not (deletions held
   * back): every live plan of the company was in it, but those in unlisted_plans. A sighting is
   * a fact about the list, kept here rather than written into every plan row.
   */
  plansSeenAt: text("plans_seen_at"),
  /**
   * The newest sync (not a replay) that recorded what it rejected: the rejected_records rows
   * whose last_run_id is this run are what is rejected now (v_rejected_now).
   */
  rejectionsRunId: integer("rejections_run_id"),
  /**
   * Bumped by every write to the company's plans or reports (its own snapshots, and another
   * company's snapshot taking one of its plans over). A sync reads the company's index before
   * it downloads; when the generation moved meanwhile, that index is stale and nothing is applied.
   */
  writeGeneration: integer("write_generation").notNull().default(0),
  /** What the daemons last alerted about this company (ok, failing, stale, failing+stale). */
  alertState: text("alert_state"),
  alertChangedAt: text("alert_changed_at"),
  /**
   * The newest finished run of the company (the highest id not `running`) and the start of its
   * newest success (`succeeded` or `partial`, not a replay): kept where a run ends, so that the
   * freshness check and `status` read one row per company however long the run history.
   */
  lastRunId: integer("last_run_id"),
  lastSuccessAt: text("last_success_at"),
});

/**
 * One row per episode of a rejection: the same content (entity, id or none, content hash) rejected
 * for the same reason by consecutive syncs of a company. Seen again, the row's last run moves;
 * its bytes are stored once.
 */
export const rejectedRecords = sqliteTable(
  "rejected_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: integer("company_id").notNull(),
    entity: text("entity", { enum: ["plan", "scheduled_report"] }).notNull(),
    entityId: integer("entity_id"),
    contentHash: text("content_hash").notNull(),
    reason: text("reason").notNull(),
    firstRunId: integer("first_run_id").notNull(),
    lastRunId: integer("last_run_id").notNull(),
    firstSeenAt: text("first_seen_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    seenRuns: integer("seen_runs").notNull().default(1),
    /** Last: seen again, the row's small columns change and its long text stays where it is. */
    rawJson: text("raw_json"),
  },
  (t) => [index("rejected_records_company_run_idx").on(t.companyId, t.lastRunId)],
);

export const syncErrors = sqliteTable(
  "sync_errors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: integer("run_id").notNull(),
    entity: text("entity", { enum: ["plans", "scheduled_report"] }).notNull(),
    entityId: integer("entity_id"),
    code: text("code").notNull(),
    httpStatus: integer("http_status"),
    message: text("message").notNull(),
  },
  (t) => [index("sync_errors_run_idx").on(t.runId)],
);

/**
 * Live plans missing from a plan list whose deletions were held back: the list does not vouch
 * for them (sync_state.plans_seen_at), so each keeps its true last sighting here until a list
 * holds it again or a complete list deletes it.
 */
export const unlistedPlans = sqliteTable(
  "unlisted_plans",
  {
    planId: integer("plan_id").primaryKey(),
    companyId: integer("company_id").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    missingSince: text("missing_since").notNull(),
  },
  (t) => [index("unlisted_plans_company_idx").on(t.companyId)],
);
