/** The sync queue: one job scheduler per configured company, and the sync worker. */
import type { Job, Worker } from "bullmq";
import * as syncJob from "../../jobs/sync-company.js";
import { type Config, syncEveryOf } from "../config/index.js";
import type { Logger } from "../log.js";
import type { Clients } from "../runtime.js";
import { openStore } from "../store/db.js";
import { OwnedQueue } from "./owned-queue.js";

export const SYNC_QUEUE = "sync";

export class SyncQueue extends OwnedQueue {
  constructor(
    private readonly cfg: Config,
    private readonly clients: Clients,
    private readonly logger: Logger,
  ) {
    super(SYNC_QUEUE, cfg, logger);
  }

  /** Make the schedulers match the config: one per company, none for removed companies. */
  async schedule(): Promise<void> {
    const wanted = new Set(this.cfg.companies.map((c) => syncJob.schedulerId(c.id)));
    for (const c of this.cfg.companies) {
      await this.queue.upsertJobScheduler(
        syncJob.schedulerId(c.id),
        { every: syncEveryOf(this.cfg, c) },
        { name: syncJob.NAME, data: { companyId: c.id }, opts: syncJob.jobTemplateOptions },
      );
    }
    for (const s of await this.queue.getJobSchedulers()) {
      if (s.key && !wanted.has(s.key)) await this.queue.removeJobScheduler(s.key);
    }
  }

  /** Syncs run one at a time per process, each on its own SQLite connection. */
  startWorker(): Worker {
    const { cfg, clients, logger } = this;
    const worker = this.runWorker(
      async (job: Job) => {
        // Removing a company's scheduler leaves a job it already queued (its first, immediate run).
        const { companyId } = syncJob.payloadSchema.parse(job.data);
        if (!cfg.companies.some((c) => c.id === companyId)) {
          logger.warn({ companyId, jobId: job.id }, "skipped the sync of a company no longer in the config");
          return { skipped: "company not in the config" };
        }
        const store = openStore(cfg.database, { migrate: false });
        try {
          const result = await syncJob.process(
            job.data,
            { sqlite: store.sqlite, client: clients.clientFor(companyId), logger },
            (id) => clients.company(id).reportIds,
          );
          return { runId: result.runId, status: result.status, counts: result.counts };
        } finally {
          store.close();
        }
      },
      { concurrency: 1, lockDuration: 120_000 },
    );
    worker.on("error", (err) => logger.error({ err: err.message }, "sync worker error"));
    return worker;
  }
}
