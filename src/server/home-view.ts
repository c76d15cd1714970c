/** What the operator's home page (`/`) shows: plain data the daemon gathers and the page renders. */

export interface HomeCompany {
  companyId: number;
  /** The company's schedule and when it counts as stale, as the config spells durations ("15m"). */
  every: string;
  staleAfter: string;
  lastRun: {
    id: number;
    status: string;
    startedAt: string;
    finishedAt: string | null;
    error: string | null;
  } | null;
  lastSuccessAt: string | null;
  stale: boolean;
  failing: boolean;
  /** Records the last run rejected; null when unknown. */
  rejectedNow: number | null;
  /** Schema changes not acknowledged yet. */
  openChanges: number;
  /** The sync scheduler's next run (ISO); null when not scheduled or unknown (see `problems`). */
  nextRunAt: string | null;
}

export interface HomeView {
  /** When the data was read (ISO): ages on the page are measured from it. */
  generatedAt: string;
  companies: HomeCompany[];
  /** The push outbox's rows per state, and the companies whose rows are held. */
  outbox: { counts: Record<string, number>; held: { companyId: number; rows: number; reason: string }[] };
  /** What could not be read (Redis down, a role this daemon does not run), one line each. */
  problems: string[];
}
