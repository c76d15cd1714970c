/**
 * Waiting on something that may never answer (a command to an unreachable Redis, a database
 * that hangs) for at most a while. A promise that settles after the deadline is still handled:
 * its late rejection is not an unhandled one.
 */
export type Outcome<T> = { settled: true; value: T } | { settled: true; error: unknown } | { settled: false };

export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
    timer.unref();
  });
  const answered = promise.then(
    (value): Outcome<T> => ({ settled: true, value }),
    (error: unknown): Outcome<T> => ({ settled: true, error }),
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The value, or undefined when it failed or did not come within `ms`. */
export async function valueWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const o = await withDeadline(promise, ms);
  return o.settled && "value" in o ? o.value : undefined;
}
