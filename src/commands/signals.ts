/**
 * How every command stops: the first SIGINT/SIGTERM is acknowledged with one line on stderr
 * and aborts the command's stop signal (it finishes or abandons its current unit, then
 * returns); a second one exits at once. Either way the exit code is 128 + the signal number.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

export interface StopWatch {
  /** Aborted on the first signal. */
  signal: AbortSignal;
  /** Resolves with the first signal (for a command that waits for one, like the simulator). */
  stopped: Promise<StopSignal>;
  /** The first signal received, or null. */
  received(): StopSignal | null;
  /** Removes the handlers (when the command has returned: main() also runs inside tests). */
  dispose(): void;
}

export interface StopWatchIo {
  write(text: string): void;
  exit(code: number): void;
  on(signal: StopSignal, listener: (signal: StopSignal) => void): void;
  off(signal: StopSignal, listener: (signal: StopSignal) => void): void;
}

const processIo: StopWatchIo = {
  write: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
  on: (signal, listener) => process.on(signal, listener),
  off: (signal, listener) => process.off(signal, listener),
};

/**
 * Installs the handlers for `command` until dispose(): they cover the command's own clean-up
 * after a first signal (closing queues, connections), when a second one must exit at once.
 */
export function watchStopSignals(command: string, io: StopWatchIo = processIo): StopWatch {
  const controller = new AbortController();
  let first: StopSignal | null = null;
  let resolveStopped: (s: StopSignal) => void = () => {};
  const stopped = new Promise<StopSignal>((resolve) => {
    resolveStopped = resolve;
  });
  const onSignal = (signal: StopSignal) => {
    if (first !== null) {
      io.write(`tas-sync ${command}: ${signal} again: exiting at once\n`);
      io.exit(SIGNAL_EXIT_CODES[signal]);
      return;
    }
    first = signal;
    io.write(`tas-sync ${command}: ${signal} received, stopping (Ctrl+C again to exit at once)\n`);
    controller.abort();
    resolveStopped(signal);
  };
  io.on("SIGINT", onSignal);
  io.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    stopped,
    received: () => first,
    dispose() {
      io.off("SIGINT", onSignal);
      io.off("SIGTERM", onSignal);
    },
  };
}
