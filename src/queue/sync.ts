/** The sync queue: one job scheduler per configured company, and the sync worker. */
import type { Job, Worker } from "bullmq";
import * as syncJob from "../../jobs/sync-company.js";
import { type Config, syncEveryOf } from "../config/index.js";
import type { Logger } from "../log.js";
import type { Clients } from "../runtime.js";
import type { Store } from "../store/port.js";
import type { Telemetry } from "../telemetry.js";
import { OwnedQueue } from "./owned-queue.js";
import type { RedisWatch } from "./redis-watch.js";

export const SYNC_QUEUE = "sync";

export interface SyncQueueDeps {
  cfg: Config;
  store: Store;
  clients: Clients;
  logger: Logger;
  telemetry?: Telemetry;
  /** Abandons running syncs (the daemon is stopping and its grace period is over). */
  signal?: AbortSignal;
  watch?: RedisWatch;
}

export class SyncQueue extends OwnedQueue {
  constructor(private readonly deps: SyncQueueDeps) {
    super(SYNC_QUEUE, deps.cfg, deps.logger, deps.watch);
  }

  /** Make the schedulers match the config: one per company, none for removed companies. */
  async schedule(): Promise<void> {
    const { cfg } = this.deps;
    const wanted = new Set(cfg.companies.map((c) => syncJob.schedulerId(c.id)));
    for (const c of cfg.companies) {
      await this.queue.upsertJobScheduler(
        syncJob.schedulerId(c.id),
        { every: syncEveryOf(cfg, c) },
        { name: syncJob.NAME, data: { companyId: c.id }, opts: syncJob.jobTemplateOptions },
      );
    }
    for (const s of await this.queue.getJobSchedulers()) {
      if (s.key && !wanted.has(s.key)) await this.queue.removeJobScheduler(s.key);
    }
  }

  /** Up to sync.concurrency companies at once; one company never twice at once (its lease). */
  startWorker(): Worker {
    const { cfg, clients, logger, store } = this.deps;
    const worker = this.runWorker(
      async (job: Job) => {
        // Removing a company's scheduler leaves a job it already queued (its first, immediate run).
        const { companyId } = syncJob.payloadSchema.parse(job.data);
        if (!cfg.companies.some((c) => c.id === companyId)) {
          logger.warn({ companyId, jobId: job.id }, "skipped the sync of a company no longer in the config");
          return { skipped: "company not in the config" };
        }
        const result = await syncJob.process(
          job.data,
          {
            store,
            client: clients.clientFor(companyId),
            logger,
            leaseMs: cfg.sync.leaseMs,
            readAheadBytes: cfg.sync.readAheadBytes,
            schema: cfg.schema,
            ...(this.deps.telemetry ? { telemetry: this.deps.telemetry } : {}),
            ...(this.deps.signal ? { signal: this.deps.signal } : {}),
          },
          (id) => clients.company(id).reportIds,
        );
        return { runId: result.runId, status: result.status, counts: result.counts };
      },
      { concurrency: cfg.sync.concurrency, lockDuration: 120_000 },
    );
    return worker;
  }
}
