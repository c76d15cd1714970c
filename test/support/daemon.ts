/**
 * A `tas-sync daemon` of the built CLI in a child process, with its JSON log lines parsed, the
 * URL of its HTTP server (port 0: it logs the one it got), and helpers to wait on it.
 */
import type { ChildProcess } from "node:child_process";
import { type Run, startCli } from "./built-cli.js";

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface RunningDaemon {
  child: ChildProcess;
  exited: Promise<Run>;
  logs(): LogLine[];
  /** The HTTP server's URL, once it logged it. */
  url(): Promise<string>;
  /** Resolves with the first log line matching, or rejects if the process ends first. */
  waitFor(match: (l: LogLine) => boolean, what: string, ms?: number): Promise<LogLine>;
  kill(signal?: NodeJS.Signals): void;
}

export function startDaemon(args: string[], env: NodeJS.ProcessEnv = {}): RunningDaemon {
  const { child, done } = startCli(["daemon", ...args], env);
  let buffer = "";
  const lines: LogLine[] = [];
  child.stderr.on("data", (d: Buffer) => {
    buffer += d.toString("utf8");
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("{")) {
        try {
          lines.push(JSON.parse(line) as LogLine);
        } catch {
          // a line that is not JSON (a crash) stays in the Run's stderr
        }
      }
      nl = buffer.indexOf("\n");
    }
  });
  const waitFor = async (match: (l: LogLine) => boolean, what: string, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) {
        const run = await done;
        throw new Error(
          `daemon exited (${run.code ?? run.signal}) before ${what}: ${run.stderr.slice(-2000)}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    child,
    exited: done,
    logs: () => lines,
    url: async () => String((await waitFor((l) => l.msg === "HTTP server listening", "the server")).url),
    waitFor,
    kill: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Polls `probe` until it gives a value (not undefined); fails after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
