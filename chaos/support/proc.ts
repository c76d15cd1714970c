/**
 * Real processes for the chaos runner: the built CLI as shipped (`dist/cli/bin.js`) with its JSON log
 * lines parsed as they arrive, and `tas-sync simulate --json` in a child process with helpers
 * for its admin endpoints.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { readListeningEvent } from "../../src/simulator/command-output.js";
import type { AdminScenario } from "../../src/simulator/scenarios.js";

/** The CLI as shipped: tsc output bundled by scripts/bundle.mjs (`npm run build`). */
const BIN = fileURLToPath(new URL("../../cli/bin.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every child process still running, so that a stopped runner leaves none behind. */
const running = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

const stopHooks = new Set<() => void>();

/** Runs `hook` if the runner is stopped while `fn` runs (to kill what it started). */
export async function whileStoppable<T>(hook: () => void, fn: () => Promise<T>): Promise<T> {
  stopHooks.add(hook);
  try {
    return await fn();
  } finally {
    stopHooks.delete(hook);
  }
}

/** Kills (SIGKILL) every child process still running; a stopped process resumes first. */
export function killAll(): void {
  for (const hook of stopHooks) hook();
  for (const child of running) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
}

export interface LogLine {
  level: number;
  msg: string;
  time?: number;
  [key: string]: unknown;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  logs: LogLine[];
}

export interface RunningCli {
  child: ChildProcess;
  done: Promise<CliResult>;
  logs: LogLine[];
  /** Resolves with the first log line matching (also one seen before), or null once the process ends. */
  waitForLog(match: (l: LogLine) => boolean): Promise<LogLine | null>;
  exited(): boolean;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `node dist/src/bin.js ...args` (JSON logs on stderr). */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const { TAS_CONFIG: _ignored, ...base } = process.env;
  const child = track(
    spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...base, TAS_LOG_FORMAT: "json", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  const logs: LogLine[] = [];
  const waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine | null) => void }[] = [];
  child.stdout?.on("data", (d) => {
    stdout += d;
  });
  let partial = "";
  child.stderr?.on("data", (d: Buffer) => {
    const text = d.toString("utf8");
    stderr += text;
    partial += text;
    let nl = partial.indexOf("\n");
    while (nl >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      nl = partial.indexOf("\n");
      if (!line.startsWith("{")) continue;
      try {
        const parsed = JSON.parse(line) as LogLine;
        logs.push(parsed);
        for (const w of waiters.splice(0)) {
          if (w.match(parsed)) w.resolve(parsed);
          else waiters.push(w);
        }
      } catch {
        // not a log line
      }
    }
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      for (const w of waiters.splice(0)) w.resolve(null);
      resolve({ code, signal, stdout, stderr, logs });
    });
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    done,
    logs,
    exited,
    waitForLog(match) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      if (exited()) return Promise.resolve(null);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    kill(signal = "SIGKILL") {
      if (!exited()) child.kill(signal);
    },
  };
}

export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/** Like `cli`, but kills the process (SIGKILL) after `ms` and says so. */
export async function cliWithin(args: string[], ms: number): Promise<CliResult & { timedOut: boolean }> {
  const run = startCli(args);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    run.kill("SIGKILL");
  }, ms);
  const result = await run.done;
  clearTimeout(timer);
  return { ...result, timedOut };
}

export interface SimCompany {
  id: number;
  staticToken: string;
  projectIds: number[];
  reportIds: number[];
}

export type { AdminScenario };

export interface Simulator {
  baseUrl: string;
  tokenUrl: string;
  companies: SimCompany[];
  /** The ready-to-use tas-sync config the simulator prints (password grant). */
  config: Record<string, unknown>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  adminJson<T>(method: string, path: string, body?: unknown): Promise<T>;
  setFaults(patch: Record<string, number>): Promise<void>;
  scenarios(): Promise<AdminScenario[]>;
  stats(): Promise<{ total: number; held: number; routes: Record<string, Record<string, number>> }>;
  stop(): Promise<void>;
}

/** `tas-sync simulate --json` in a child process (its CPU is not ours). */
export async function startSimulator(args: string[]): Promise<Simulator> {
  const proc = track(
    spawn(process.execPath, [BIN, "simulate", "--json", "--port", "0", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stderr = "";
  proc.stderr?.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`simulator exited with ${code}: ${stderr}`)));
  });
  const listening = readListeningEvent(first);
  const baseUrl = listening.baseUrl;
  // Admin calls are idempotent: one that meets a keep-alive socket the simulator just closed
  // ("fetch failed") is sent again.
  const admin = async (method: string, path: string, body?: unknown): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fetch(`${baseUrl}/__admin/${path}`, {
          method,
          ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
        });
      } catch (err) {
        if (attempt >= 5 || proc.exitCode !== null || proc.signalCode !== null) {
          const cause = (err as Error & { cause?: Error }).cause?.message ?? "";
          throw new Error(`${method} __admin/${path}: ${(err as Error).message} ${cause} ${stderr}`);
        }
        await sleep(50 * attempt);
      }
    }
  };
  const adminJson = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await admin(method, path, body);
    if (!res.ok) throw new Error(`${method} __admin/${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    baseUrl,
    tokenUrl: listening.tokenUrl,
    companies: listening.companies,
    config: listening.config,
    admin,
    adminJson,
    async setFaults(patch) {
      await adminJson("PUT", "faults", patch);
    },
    scenarios: async () => (await adminJson<{ scenarios: AdminScenario[] }>("GET", "scenarios")).scenarios,
    stats: () => adminJson("GET", "stats"),
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

/** Runs `fn` over `items`, `width` at a time. */
export async function parallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Polls `probe` until it gives a value; null after `ms`. */
export async function until<T>(probe: () => Promise<T | undefined>, ms: number, every = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return null;
    await sleep(every);
  }
}

/** A seeded random source (mulberry32), so a run can be repeated with --seed. */
export class Random {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  next(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, n);
  }
}
