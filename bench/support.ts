/**
 * Benchmark helpers: spawn the simulator as its own process, databases made for the run,
 * rounds in turn, figures and the verdict line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { maskUrl } from "../src/config/index.js";
import { readListeningEvent } from "../src/simulator/command-output.js";

export interface SpawnedSimulator {
  baseUrl: string;
  tokenUrl: string;
  companies: { id: number; staticToken: string; projectIds: number[]; reportIds: number[] }[];
  proc: ChildProcess;
  stop(): Promise<void>;
}

const BIN = fileURLToPath(new URL("../cli/bin.js", import.meta.url));

/** Runs `tas-sync simulate --json` in a child process, so its CPU is not ours. */
export async function spawnSimulator(args: string[]): Promise<SpawnedSimulator> {
  const proc = spawn(process.execPath, [BIN, "simulate", "--json", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const { baseUrl, tokenUrl, companies } = readListeningEvent(first);
  return {
    baseUrl,
    tokenUrl,
    companies,
    proc,
    stop: () =>
      new Promise((resolve) => {
        // Already gone (a signal to the whole group, a crash): "exit" will not fire again, and
        // waiting for it would let the process end without its cleanup.
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

/**
 * `n` CPU-bound processes, a loaded machine emulated. Each spins in 50 ms slices and leaves as
 * soon as this process goes (its IPC channel closes), even when this one is killed. One that
 * ends before `stop` says so: the load it stood for is gone.
 */
export function spawnBusy(n: number): { stop(): Promise<void>; ended(): number } {
  const spin =
    "process.on('disconnect', () => process.exit(0));" +
    "(function spin() { const end = Date.now() + 50; while (Date.now() < end); setImmediate(spin); })();";
  const procs: ChildProcess[] = [];
  let stopping = false;
  let ended = 0;
  const stop = () => {
    stopping = true;
    return Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return resolve();
            p.once("exit", () => resolve());
            p.kill("SIGKILL");
          }),
      ),
    ).then(() => {});
  };
  try {
    for (let k = 0; k < n; k++) {
      const p = spawn(process.execPath, ["-e", spin], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
      p.on("error", (err) => console.error(`a CPU-bound process could not run: ${err.message}`));
      p.once("exit", (code, signal) => {
        if (stopping) return;
        ended++;
        console.error(`a CPU-bound process ended early (${signal ?? `exit code ${code}`})`);
      });
      procs.push(p);
    }
  } catch (err) {
    void stop();
    throw err;
  }
  return { stop, ended: () => ended };
}

/**
 * `--<name> N` / `--<name>=N`, else the environment variable, else `fallback`: a whole number in
 * [0, max]. A flag without its number is refused, not read as the fallback.
 */
export function countOption(
  argv: readonly string[],
  name: string,
  env: string,
  max: number,
  fallback = 0,
): number {
  const flag = `--${name}`;
  const i = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  const arg = i < 0 ? undefined : argv[i]?.includes("=") ? argv[i]?.slice(flag.length + 1) : argv[i + 1];
  const from = i < 0 ? env : flag;
  const value = i < 0 ? process.env[env] : (arg ?? "");
  if (value === undefined || (i < 0 && value === "")) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new Error(`${from} is "${value}": say a whole number from 0 to ${max}`);
  return Number(value);
}

/** The middle value; of an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function verdict(ok: boolean): string {
  return ok ? "PASS" : "FAIL";
}

/**
 * CPU time of this process's main thread alone, in milliseconds (Linux: its utime + stime in
 * /proc/self/task/<pid>/stat, clock ticks of 10 ms); null where that cannot be read.
 */
export function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) of this process, all its threads, since `start`: milliseconds. */
export function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * A benchmark's figures, ratios and targets: one line each as they come, then one verdict line
 * at the end; `exitCode` is 1 when any target was missed.
 */
export class Report {
  readonly #missed: string[] = [];
  #targets = 0;

  constructor(readonly name: string) {}

  /** A measured figure. */
  figure(label: string, text: string): void {
    console.log(`${label.padEnd(44)} ${text}`);
  }

  /** A target: `value` against `limit` (`at least` or `at most`), printed with its verdict. */
  target(
    label: string,
    value: number,
    kind: "at least" | "at most",
    limit: number,
    show: (n: number) => string,
  ): boolean {
    const ok = kind === "at least" ? value >= limit : value <= limit;
    this.#targets++;
    if (!ok) this.#missed.push(label);
    console.log(
      `${label.padEnd(44)} ${show(value).padEnd(12)} (target ${kind} ${show(limit)})  ${verdict(ok)}`,
    );
    return ok;
  }

  /** A check that is no ratio (a count that must be 0, a phase that must complete). */
  check(label: string, ok: boolean, detail: string): boolean {
    this.tally(label, ok);
    console.log(`${label.padEnd(44)} ${detail}  ${verdict(ok)}`);
    return ok;
  }

  /** A target whose line the bench printed in a form of its own: counted, not printed. */
  tally(label: string, ok: boolean): boolean {
    this.#targets++;
    if (!ok) this.#missed.push(label);
    return ok;
  }

  /** Prints the verdict line; returns the exit code. */
  end(): number {
    const line = this.#missed.length
      ? `${this.name}: FAIL (${this.#missed.length} of ${this.#targets} targets missed: ${this.#missed.join("; ")})`
      : `${this.name}: PASS (${this.#targets} of ${this.#targets} targets met)`;
    console.log("");
    console.log(line);
    return this.#missed.length ? 1 : 0;
  }
}

/**
 * Several sides run in turn, round after round (a, b, a, b...), so that a machine growing busier
 * or quieter during the bench weighs on all alike; the best run of each side (lowest `score`) is
 * kept, with every run. One side: that side `rounds` times.
 */
export async function bestInTurn<T>(
  rounds: number,
  sides: ((round: number) => Promise<T>)[],
  score: (t: T) => number,
): Promise<{ best: T; all: T[] }[]> {
  const runs: T[][] = sides.map(() => []);
  for (let i = 0; i < rounds; i++) for (const [k, side] of sides.entries()) runs[k]?.push(await side(i));
  return runs.map((all) => ({ best: all.reduce((x, y) => (score(y) < score(x) ? y : x)), all }));
}

export const MB = 1_000_000;

/** The PostgreSQL server the benches make their databases on. */
export const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Databases made for the run at PG_URL, each dropped by `dropAll`. */
export class BenchDatabases {
  readonly #admin = new pg.Client({ connectionString: PG_URL });
  readonly #made: string[] = [];
  #connected = false;

  /** Connects to the server once; the driver's error when it does not answer. */
  async connect(): Promise<void> {
    if (this.#connected) return;
    await this.#admin.connect();
    this.#connected = true;
  }

  /** A new empty database; its URL. */
  async create(): Promise<string> {
    try {
      await this.connect();
    } catch (err) {
      throw new Error(`PostgreSQL at ${maskUrl(PG_URL)} does not answer: ${(err as Error).message}`);
    }
    const name = `tas_bench_${randomBytes(6).toString("hex")}`;
    await this.#admin.query(`CREATE DATABASE ${name}`);
    this.#made.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.toString();
  }

  async dropAll(): Promise<void> {
    if (!this.#connected) return;
    for (const name of this.#made)
      await this.#admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await this.#admin.end();
  }
}
