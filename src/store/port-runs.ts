/** The store's side of sync runs: run records, errors, leases, and each company's state. */

export type RunStatus = "running" | "succeeded" | "partial" | "failed" | "superseded" | "cancelled";

export interface RunCounts {
  fetched: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  rejected: number;
}

export function emptyCounts(): RunCounts {
  return { fetched: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, rejected: 0 };
}

/** The process that runs something: its host and pid. */
export interface Owner {
  host: string;
  pid: number;
}

export interface RunStart {
  companyId: number;
  trigger: string;
  startedAt: string;
  owner: Owner;
}

export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  counts: RunCounts;
  finishedAt: string;
  error: string | null;
}

export interface SyncErrorRecord {
  entity: "plans" | "scheduled_report";
  entityId: number | null;
  code: string;
  httpStatus: number | null;
  message: string;
}

/** A run still marked running, with what is known of its process. */
export interface OpenRun {
  id: number;
  companyId: number;
  startedAt: string;
  heartbeatAt: string | null;
  owner: Owner | null;
}

/** Who holds a company's lease. */
export interface Lease {
  token: string;
  owner: Owner;
  expiresAt: string;
}

export type LeaseResult = { ok: true } | { ok: false; holder: Lease };

/** What a person or a probe wants to know of a company. */
export interface CompanyRunState {
  companyId: number;
  /** The latest run that ended (a run still going is left out: it says nothing yet). */
  lastRun: {
    id: number;
    status: RunStatus;
    startedAt: string;
    finishedAt: string | null;
    counts: RunCounts;
    error: string | null;
  } | null;
  /**
   * Start of the newest run that ended succeeded or partial: what freshness counts (status,
   * tas_sync_company_stale, tas_sync_last_success_timestamp_seconds, the stale alert). A partial
   * run applied what it received; its problems show as the last run's status and error.
   */
  lastSuccessAt: string | null;
  /** Start of the newest snapshot applied (succeeded or partial). */
  appliedStartedAt: string | null;
  /** What was last alerted about the company (null: nothing yet). */
  alertState: string | null;
}

export interface RunStore {
  start(run: RunStart): Promise<number>;
  /** The run's process is alive; best effort (a busy database skips one beat). */
  heartbeat(runId: number, at: string): Promise<void>;
  /** End a run outside a snapshot's transaction (failed, cancelled, superseded). */
  finish(runId: number, end: RunEnd): Promise<void>;
  recordError(runId: number, error: SyncErrorRecord): Promise<void>;
  /** Runs marked running (a dead process's among them, maybe). */
  open(): Promise<OpenRun[]>;
  /** Mark a running run failed (its process died); false if it was no longer running. */
  abandon(runId: number, finishedAt: string, reason: string): Promise<boolean>;
  /**
   * Take the company's lease until `expiresAt`: granted when free, expired, or when `canTake`
   * says the holder is gone. Otherwise says who holds it.
   */
  acquireLease(
    companyId: number,
    lease: Lease,
    now: string,
    canTake: (holder: Lease) => boolean,
  ): Promise<LeaseResult>;
  /** Extend our lease; false when it is no longer ours (taken over after it expired). */
  renewLease(companyId: number, token: string, expiresAt: string): Promise<boolean>;
  releaseLease(companyId: number, token: string): Promise<void>;
  companyStates(companyIds: readonly number[]): Promise<CompanyRunState[]>;
  /**
   * Per company, the records its latest finished run rejected (rejected_records of that run):
   * what is wrong with the service's data now. Companies without a run are left out.
   */
  rejectedNow(companyIds: readonly number[]): Promise<Map<number, number>>;
  /**
   * Record that `next` was alerted, if the alerted state is still `expected` (compare and set):
   * of several daemons seeing the same change, exactly one gets true and sends the alert.
   */
  setAlertState(companyId: number, expected: string | null, next: string, at: string): Promise<boolean>;
}
