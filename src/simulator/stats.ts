/**
 * Request counts by route and status, so tests and benchmarks can see what a client really
 * sent (how many retries, how many 429s) without parsing logs.
 */
export type StatusKey = number | "dropped";

export interface StatsSnapshot {
  total: number;
  /** Requests being held right now by a delay fault (latency, plan-list delay, slow). */
  held: number;
  routes: Record<string, Record<string, number>>;
}

export class RequestStats {
  private readonly counts = new Map<string, Map<string, number>>();
  private total = 0;
  /** See StatsSnapshot.held; lets a test wait until a request is surely being held. */
  held = 0;

  record(route: string, status: StatusKey): void {
    let byStatus = this.counts.get(route);
    if (!byStatus) {
      byStatus = new Map();
      this.counts.set(route, byStatus);
    }
    const key = String(status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    this.total++;
  }

  /** Count for one route, optionally one status. */
  count(route: string, status?: StatusKey): number {
    const byStatus = this.counts.get(route);
    if (!byStatus) return 0;
    if (status !== undefined) return byStatus.get(String(status)) ?? 0;
    let sum = 0;
    for (const n of byStatus.values()) sum += n;
    return sum;
  }

  snapshot(): StatsSnapshot {
    const routes: Record<string, Record<string, number>> = {};
    for (const [route, byStatus] of this.counts) routes[route] = Object.fromEntries(byStatus);
    return { total: this.total, held: this.held, routes };
  }
}
