/**
 * The simulator's whole in-memory model: companies, their plans and reports (as raw JSON),
 * created scenarios, tokens, fault settings and request counts. HTTP handlers and tests both
 * go through this object; nothing else holds simulator data.
 */
import { setMaxListeners } from "node:events";
import { SIM_CLIENT_SECRET } from "./client.js";
import { type DriftSummary, driftPlans } from "./drift.js";
import { DEFAULT_FAULTS, FaultDice, type FaultOptions } from "./faults.js";
import { generateCompany } from "./generate.js";
import { JsonList } from "./json-list.js";
import { type CompanyLayout, companyLayout } from "./layout.js";
import { deriveSeed } from "./prng.js";
import { ScenarioStore } from "./scenarios.js";
import { RequestStats } from "./stats.js";
import { TokenStore } from "./tokens.js";

function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}

export interface SimCompanyInfo {
  id: number;
  username: string;
  password: string;
  staticToken: string;
  projectIds: number[];
  reportIds: number[];
}

export interface StateOptions {
  companies: number;
  plans: number;
  reports: number;
  seed: number;
  tokenTtlSeconds: number;
  faults: FaultOptions;
  /** Drift armed from the start: each company's plans change after its first plan list (drift.ts). */
  drift?: boolean;
  /**
   * Alphanumeric text woven into every secret the simulator knows: the OAuth2 client secret,
   * each company's password and static token. A test then finds any leak of them by the tag.
   */
  secretTag?: string;
  /** The service's clock (ms since the epoch); default Date.now. */
  now?: () => number;
}

const FAULT_STREAM = 0xfa17;

export class SimulatorState {
  readonly companies: readonly CompanyLayout[];
  /** The OAuth2 client secret the token endpoint accepts (with the client id SIM_CLIENT_ID). */
  readonly clientSecret: string;
  /** Plans per company id, in list order. */
  readonly plans = new Map<number, JsonList>();
  /** All reports, any company; `reportOwner` says whose each one is. */
  readonly reports = new JsonList();
  readonly reportOwner = new Map<number, number>();
  readonly scenarios = new ScenarioStore();
  readonly tokens: TokenStore;
  readonly stats = new RequestStats();
  readonly dice: FaultDice;
  /** The service's clock: token expiry and create times are judged by it. */
  readonly now: () => number;
  /**
   * Aborted when the server closes: ends fault delays, so no timer outlives the simulator.
   * Every held request listens to it, so it may have any number of listeners (Node warns of
   * a leak beyond 10).
   */
  readonly closing = unlimitedListeners(new AbortController());
  /** Aborted by releaseHeld(): requests held in a delay are answered now (then replaced). */
  private releaseDelays = unlimitedListeners(new AbortController());
  private currentFaults: FaultOptions;
  /** 429s still owed by the current rate-limit burst. */
  private burstLeft = 0;
  private readonly seed: number;
  private driftArmed: boolean;
  /** Companies whose plans drifted, with what changed. */
  private readonly drifted = new Map<number, DriftSummary>();

  constructor(opts: StateOptions) {
    const tag = opts.secretTag ?? "";
    this.clientSecret = tag === "" ? SIM_CLIENT_SECRET : `${SIM_CLIENT_SECRET}-${tag}`;
    this.companies = Array.from({ length: opts.companies }, (_, k) =>
      companyLayout(k, opts.plans, opts.reports, tag),
    );
    this.companies.forEach((layout, k) => {
      // Company k's reports may also point at the next company's first plan (cross-company link).
      const other = this.companies[(k + 1) % this.companies.length];
      const foreign = other && other !== layout && other.planCount > 0 ? other.firstPlanId : undefined;
      const data = generateCompany(layout, opts.seed, foreign);
      this.plans.set(layout.id, data.plans);
      for (const report of data.reports) this.putReport(report.id, layout.id, report.json);
    });
    this.tokens = new TokenStore(
      opts.tokenTtlSeconds,
      new Map(this.companies.map((c) => [c.staticToken, c.id])),
    );
    this.dice = new FaultDice(deriveSeed(opts.seed, FAULT_STREAM));
    this.now = opts.now ?? Date.now;
    this.currentFaults = { ...opts.faults };
    this.seed = opts.seed;
    this.driftArmed = opts.drift ?? false;
  }

  /** Whether drift is armed, and the companies that drifted (with how many plans each change touched). */
  get drift(): { armed: boolean; drifted: Record<string, DriftSummary> } {
    return { armed: this.driftArmed, drifted: Object.fromEntries(this.drifted) };
  }

  setDriftArmed(armed: boolean): void {
    this.driftArmed = armed;
  }

  /** A plan list was served to the company: while drift is armed, the first one makes its plans drift. */
  planListServed(companyId: number): void {
    if (this.driftArmed && !this.drifted.has(companyId)) this.driftNow(companyId);
  }

  /** Drifts the company's plans now (once: a second call changes nothing); undefined for an unknown company. */
  driftNow(companyId: number): DriftSummary | undefined {
    const done = this.drifted.get(companyId);
    const layout = this.company(companyId);
    const plans = this.plans.get(companyId);
    if (done || !layout || !plans) return done;
    const summary = driftPlans(plans, this.seed, layout.index);
    this.drifted.set(companyId, summary);
    return summary;
  }

  get faults(): FaultOptions {
    return { ...this.currentFaults };
  }

  /** Partial update of the fault settings; returns the new full settings. */
  setFaults(patch: Partial<FaultOptions>): FaultOptions {
    this.currentFaults = { ...this.currentFaults, ...patch };
    return this.faults;
  }

  resetFaults(): FaultOptions {
    this.currentFaults = { ...DEFAULT_FAULTS };
    this.burstLeft = 0;
    return this.faults;
  }

  /** What ends the delays of the requests held right now (see releaseHeld). */
  get delayRelease(): AbortSignal {
    return this.releaseDelays.signal;
  }

  /**
   * Ends every delay being waited right now: those requests go on and are answered. A test
   * holds requests with a long latency, waits until as many as it expects are held at once
   * (stats.held), then lets them go, instead of timing how close together they came.
   */
  releaseHeld(): void {
    const current = this.releaseDelays;
    this.releaseDelays = unlimitedListeners(new AbortController());
    current.abort();
  }

  /** The one-shot plan-list delay, cleared as it is taken: only the next plan list waits. */
  takePlanListDelayOnce(): number {
    const ms = this.currentFaults.planListDelayOnceMs;
    this.currentFaults.planListDelayOnceMs = 0;
    return ms;
  }

  /** A 429 fired by the dice: owe `rateLimitBurst` more. */
  startRateLimitBurst(): void {
    this.burstLeft = this.currentFaults.rateLimitBurst;
  }

  /** True (and one fewer owed) while a rate-limit burst lasts. */
  takeRateLimitBurst(): boolean {
    if (this.burstLeft <= 0) return false;
    this.burstLeft--;
    return true;
  }

  company(id: number): CompanyLayout | undefined {
    return this.companies.find((c) => c.id === id);
  }

  companyByUsername(username: string): CompanyLayout | undefined {
    return this.companies.find((c) => c.username === username);
  }

  /** Owning company of a project, or undefined for an unknown project. */
  projectCompany(projectId: number): number | undefined {
    return this.companies.find((c) => c.projectIds.includes(projectId))?.id;
  }

  /** Parsed plans of a company (a copy), for tests. */
  plansOf(companyId: number): Record<string, unknown>[] {
    return (this.plans.get(companyId)?.values() ?? []) as Record<string, unknown>[];
  }

  putReport(id: number, companyId: number, json: string): void {
    this.reports.set(id, json);
    this.reportOwner.set(id, companyId);
  }

  deleteReport(id: number): boolean {
    this.reportOwner.delete(id);
    return this.reports.delete(id);
  }

  companyInfo(): SimCompanyInfo[] {
    return this.companies.map((c) => ({
      id: c.id,
      username: c.username,
      password: c.password,
      staticToken: c.staticToken,
      projectIds: [...c.projectIds],
      reportIds: this.reports.ids().filter((id) => this.reportOwner.get(id) === c.id),
    }));
  }
}
