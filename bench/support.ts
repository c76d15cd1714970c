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
