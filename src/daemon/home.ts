/** Gathers what the home page (`/`) shows from the store, the freshness of each company and the sync queue. */
import { type Config, formatDuration, staleAfterOf, syncEveryOf } from "../config/index.js";
import { nextSyncRuns } from "../queue/inspect.js";
import type { OwnedQueue } from "../queue/owned-queue.js";
import type { HomeView } from "../server/index.js";
import type { Store } from "../store/port.js";
import type { CompanyFreshness } from "../sync/freshness.js";

export interface HomeDeps {
  cfg: Config;
  store: Store;
  freshness: () => Promise<CompanyFreshness[]>;
  /** This daemon's sync queue; null when it does not run the sync role (next runs unknown then). */
  sync: OwnedQueue | null;
  /** Whether Redis answers now (the schedulers' next runs live there). */
  redisUp: () => boolean;
  now?: () => Date;
}

export function homeView(deps: HomeDeps): () => Promise<HomeView> {
  const { cfg, store } = deps;
  const ids = cfg.companies.map((c) => c.id);
  return async () => {
    const now = (deps.now ?? (() => new Date()))();
    const problems: string[] = [];
    const nextRuns = async (): Promise<Map<number, number>> => {
      if (!deps.sync) {
        problems.push("next runs unknown: this daemon does not run the sync role");
        return new Map();
      }
      if (!deps.redisUp()) {
        problems.push("next runs unknown: Redis does not answer");
        return new Map();
      }
      return nextSyncRuns(deps.sync).catch((err: Error) => {
        problems.push(`next runs unknown: ${err.message}`);
        return new Map<number, number>();
      });
    };
    const [fresh, rejected, changes, counts, held, next] = await Promise.all([
      deps.freshness(),
      store.runs.rejectedNow(ids),
      store.schema.openChanges(ids),
      store.outbox.counts(),
      store.outbox.heldCompanies(),
      nextRuns(),
    ]);
    return {
      generatedAt: now.toISOString(),
      companies: fresh.map((f) => {
        const company = cfg.companies.find((c) => c.id === f.companyId);
        const nextAt = next.get(f.companyId);
        return {
          companyId: f.companyId,
          every: formatDuration(company ? syncEveryOf(cfg, company) : cfg.sync.every),
          staleAfter: formatDuration(company ? staleAfterOf(cfg, company) : f.staleAfterMs),
          lastRun: f.lastRun && {
            id: f.lastRun.id,
            status: f.lastRun.status,
            startedAt: f.lastRun.startedAt,
            finishedAt: f.lastRun.finishedAt,
            error: f.lastRun.error,
          },
          lastSuccessAt: f.lastSuccessAt?.toISOString() ?? null,
          stale: f.stale,
          failing: f.failing,
          rejectedNow: rejected.get(f.companyId) ?? (f.lastRun ? null : 0),
          openChanges: changes.get(f.companyId) ?? 0,
          nextRunAt: nextAt === undefined ? null : new Date(nextAt).toISOString(),
        };
      }),
      outbox: {
        counts: { ...counts },
        held: held.map((h) => ({ companyId: h.companyId, rows: h.rows, reason: h.message })),
      },
      problems,
    };
  };
}
