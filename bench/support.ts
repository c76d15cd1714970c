/** Benchmark helpers: spawn the simulator as its own process, format figures. */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
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

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function verdict(ok: boolean): string {
  return ok ? "PASS" : "FAIL";
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
    this.#targets++;
    if (!ok) this.#missed.push(label);
    console.log(`${label.padEnd(44)} ${detail}  ${verdict(ok)}`);
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

/** Runs `run` `rounds` times (in order); returns every result, and the best by `score` (lowest). */
export async function bestOf<T>(
  rounds: number,
  run: (round: number) => Promise<T>,
  score: (t: T) => number,
): Promise<{ best: T; all: T[] }> {
  const all: T[] = [];
  for (let i = 0; i < rounds; i++) all.push(await run(i));
  const best = all.reduce((a, b) => (score(b) < score(a) ? b : a));
  return { best, all };
}

/**
 * Several sides run in turn, round after round (a, b, a, b...), so that a machine growing busier
 * or quieter during the bench weighs on all alike; the best run of each side is kept.
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
