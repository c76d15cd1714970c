/**
 * Every Prometheus metric of the daemon, with its name and help text, in one place. `Metrics`
 * is the Telemetry the pipeline reports through; point-in-time gauges (freshness, queue sizes)
 * are read at scrape time through the functions passed in, never kept up to date by hand.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { PRUNED_TABLES, type PrunedTable } from "./store/port-retention.js";
import type { RecordOutcome, SchemaChangeNote, SyncOutcome, Telemetry } from "./telemetry.js";

/** When a company last synced successfully and whether that is too long ago. */
export interface CompanyFreshness {
  companyId: number;
  lastSuccessAt: Date | null;
  stale: boolean;
}

/** A queue's job counts by BullMQ state (waiting, active, delayed, completed, failed, ...). */
export interface QueueCounts {
  queue: string;
  counts: Record<string, number>;
}

export interface MetricsOptions {
  /** Where the metrics register; a new registry by default (never prom-client's global one). */
  registry?: Registry;
  freshness: () => Promise<CompanyFreshness[]>;
  queueCounts: () => Promise<QueueCounts[]>;
  /** Told when a scrape-time read fails (the gauge then has no sample for that scrape). */
  onCollectError?: (metric: string, error: unknown) => void;
}

const RECORD_OUTCOMES: readonly RecordOutcome[] = ["inserted", "updated", "unchanged", "deleted", "rejected"];

/** Sync runs take from under a second (small company) to many minutes (thousands of plans). */
const SYNC_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export class Metrics implements Telemetry {
  readonly registry: Registry;
  readonly #syncDuration: Histogram<"company" | "outcome">;
  readonly #syncRuns: Counter<"company" | "outcome">;
  readonly #records: Counter<"company" | "outcome">;
  readonly #pushOutcomes: Counter<"outcome" | "code">;
  readonly #httpRequests: Counter<"operation" | "status">;
  readonly #httpRetries: Counter<"operation">;
  readonly #rateLimitWaits: Counter<"operation">;
  readonly #rateLimitWaitSeconds: Counter<"operation">;
  readonly #schemaChanges: Counter<"entity" | "kind">;
  readonly #schemaRefused: Counter<"entity" | "kind">;
  readonly #pruned: Counter<"table">;
  readonly #lastPrune: Gauge;
  readonly #lastPruneDuration: Gauge;
  #freshnessRead: Promise<CompanyFreshness[]> | null = null;

  constructor(opts: MetricsOptions) {
    const registry = opts.registry ?? new Registry();
    this.registry = registry;
    const registers = [registry];
    collectDefaultMetrics({ register: registry });

    this.#syncDuration = new Histogram({
      name: "tas_sync_sync_duration_seconds",
      help: "How long a company's sync run took, by how it ended.",
      labelNames: ["company", "outcome"],
      buckets: SYNC_BUCKETS,
      registers,
    });
    this.#syncRuns = new Counter({
      name: "tas_sync_sync_runs_total",
      help: "Company sync runs that ended, by outcome (succeeded, partial, failed, superseded, cancelled, skipped).",
      labelNames: ["company", "outcome"],
      registers,
    });
    this.#records = new Counter({
      name: "tas_sync_records_total",
      help: "Records handled by sync runs, by what became of them (inserted, updated, unchanged, deleted, rejected).",
      labelNames: ["company", "outcome"],
      registers,
    });
    this.#pushOutcomes = new Counter({
      name: "tas_sync_push_outcomes_total",
      help: 'Scenario create attempts, by outcome (created, exists, failed, retry) and reason code ("" when none).',
      labelNames: ["outcome", "code"],
      registers,
    });
    this.#httpRequests = new Counter({
      name: "tas_sync_http_requests_total",
      help: 'Requests sent to the service (each attempt), by operation and HTTP status ("error" when none came back).',
      labelNames: ["operation", "status"],
      registers,
    });
    this.#httpRetries = new Counter({
      name: "tas_sync_http_retries_total",
      help: "Requests sent again after a failure (5xx, timeout, connection reset), by operation.",
      labelNames: ["operation"],
      registers,
    });
    this.#rateLimitWaits = new Counter({
      name: "tas_sync_rate_limit_waits_total",
      help: "Times a 429 from the service was waited out, by operation.",
      labelNames: ["operation"],
      registers,
    });
    this.#rateLimitWaitSeconds = new Counter({
      name: "tas_sync_rate_limit_wait_seconds_total",
      help: "Seconds spent waiting out 429s from the service, by operation.",
      labelNames: ["operation"],
      registers,
    });

    this.#schemaChanges = new Counter({
      name: "tas_sync_schema_changes_total",
      help: "Changes of the service's schema found by sync runs (schema_changes), by entity and kind (added, removed, type_changed, new_value, value_gone).",
      labelNames: ["entity", "kind"],
      registers,
    });
    this.#schemaRefused = new Counter({
      name: "tas_sync_schema_refused_records_total",
      help: "Records a sync run refused (the reader rejected them, or the schema contract did) that showed a schema change it recorded, by the change's entity and kind (added, type_changed): a documented field sent with another type counts here.",
      labelNames: ["entity", "kind"],
      registers,
    });

    this.#pruned = new Counter({
      name: "tas_sync_pruned_rows_total",
      help: "Rows removed by the daemon's daily prune (retention), by table.",
      labelNames: ["table"],
      registers,
    });
    for (const table of PRUNED_TABLES) this.#pruned.inc({ table }, 0);
    this.#lastPrune = new Gauge({
      name: "tas_sync_last_prune_timestamp_seconds",
      help: "Unix time the daemon's last prune ended (no sample before the first).",
      registers,
    });
    this.#lastPruneDuration = new Gauge({
      name: "tas_sync_last_prune_duration_seconds",
      help: "How long the daemon's last prune took, pauses between its batches included.",
      registers,
    });

    // Both freshness gauges are collected in the same scrape (prom-client collects in parallel):
    // they share one read instead of asking the store twice.
    const freshness = () => {
      this.#freshnessRead ??= opts.freshness().finally(() => {
        this.#freshnessRead = null;
      });
      return this.#freshnessRead;
    };
    const onError = opts.onCollectError ?? (() => {});

    pointInTimeGauge({
      name: "tas_sync_last_success_timestamp_seconds",
      help: "Unix time of the start of the company's last sync that ended succeeded or partial (no sample before its first).",
      labelNames: ["company"],
      registers,
      onError,
      read: freshness,
      write: (gauge, companies) => {
        for (const c of companies) {
          if (c.lastSuccessAt) gauge.set({ company: String(c.companyId) }, c.lastSuccessAt.getTime() / 1000);
        }
      },
    });
    pointInTimeGauge({
      name: "tas_sync_company_stale",
      help: "1 when the company's last succeeded or partial sync started longer ago than sync.staleAfter (or it never had one), 0 when fresh.",
      labelNames: ["company"],
      registers,
      onError,
      read: freshness,
      write: (gauge, companies) => {
        for (const c of companies) gauge.set({ company: String(c.companyId) }, c.stale ? 1 : 0);
      },
    });
    pointInTimeGauge({
      name: "tas_sync_queue_jobs",
      help: "Jobs in each BullMQ queue, by state (waiting, active, delayed, completed, failed, paused, prioritized).",
      labelNames: ["queue", "state"],
      registers,
      onError,
      read: opts.queueCounts,
      write: (gauge, queues) => {
        for (const q of queues) {
          for (const [state, n] of Object.entries(q.counts)) gauge.set({ queue: q.queue, state }, n);
        }
      },
    });
  }

  httpRequest(operation: string, status: number | "error"): void {
    this.#httpRequests.inc({ operation, status: String(status) });
  }

  httpRetry(operation: string): void {
    this.#httpRetries.inc({ operation });
  }

  rateLimitWait(operation: string, seconds: number): void {
    this.#rateLimitWaits.inc({ operation });
    this.#rateLimitWaitSeconds.inc({ operation }, seconds);
  }

  syncFinished(
    companyId: number,
    outcome: SyncOutcome,
    durationSeconds: number,
    records: Record<RecordOutcome, number>,
  ): void {
    const company = String(companyId);
    this.#syncDuration.observe({ company, outcome }, durationSeconds);
    this.#syncRuns.inc({ company, outcome });
    // inc by 0 too, so every outcome's series exists from the first run (rate() needs it).
    for (const o of RECORD_OUTCOMES) this.#records.inc({ company, outcome: o }, records[o]);
  }

  pushOutcome(outcome: "created" | "exists" | "failed" | "retry", code: string | null): void {
    this.#pushOutcomes.inc({ outcome, code: code ?? "" });
  }

  /** A prune ended: the rows it removed per table, when, and how long it took. */
  pruned(removed: Record<PrunedTable, number>, at: Date, durationSeconds: number): void {
    for (const table of PRUNED_TABLES) this.#pruned.inc({ table }, removed[table]);
    this.#lastPrune.set(at.getTime() / 1000);
    this.#lastPruneDuration.set(durationSeconds);
  }

  schemaChanged(_companyId: number, _runId: number, changes: readonly SchemaChangeNote[]): void {
    for (const c of changes) {
      this.#schemaChanges.inc({ entity: c.entity, kind: c.kind });
      if (c.refused) this.#schemaRefused.inc({ entity: c.entity, kind: c.kind }, c.refused);
    }
  }
}

/**
 * A gauge read at scrape time. The read happens first and the samples are replaced in one
 * synchronous step, so a company or queue that went away leaves no stale series and a
 * concurrent scrape never sees a half-filled gauge. A failed read leaves no samples instead
 * of failing the whole scrape.
 */
function pointInTimeGauge<L extends string, T>(spec: {
  name: string;
  help: string;
  labelNames: L[];
  registers: Registry[];
  onError: (metric: string, error: unknown) => void;
  read: () => Promise<T>;
  write: (gauge: Gauge<L>, data: T) => void;
}): Gauge<L> {
  const { read, write, onError, ...config } = spec;
  return new Gauge<L>({
    ...config,
    async collect() {
      try {
        const data = await read();
        this.reset();
        write(this, data);
      } catch (err) {
        this.reset();
        onError(spec.name, err);
      }
    },
  });
}
