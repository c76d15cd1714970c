/** /healthz (the process answers) and /readyz (its dependencies answer). */
import type { Context } from "hono";
import type { Readiness } from "./types.js";

/** Alive while the event loop turns: no dependency is checked, so a Redis outage never restarts us. */
export function healthz(c: Context): Response {
  return c.json({ status: "ok" });
}

/** 200 with the readiness when ok, 503 otherwise; a readiness that throws or hangs is a 503 saying so. */
export function readyz(readiness: () => Promise<Readiness>, timeoutMs: number) {
  return async (c: Context): Promise<Response> => {
    const result = await withTimeout(readiness, timeoutMs);
    return c.json(result, result.ok ? 200 : 503);
  };
}

async function withTimeout(readiness: () => Promise<Readiness>, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve(failed(`readiness check did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref(); // a pending probe must not hold a stopping process
  });
  try {
    return await Promise.race([readiness(), timedOut]);
  } catch (err) {
    return failed(`readiness check failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

function failed(detail: string): Readiness {
  return { ok: false, checks: { readiness: { ok: false, detail } } };
}
