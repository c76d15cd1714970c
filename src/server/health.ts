/** /healthz (the process answers) and /readyz (its dependencies answer). */
import type { Context } from "hono";
import { withDeadline } from "../deadline.js";
import type { Readiness } from "./types.js";

/** Alive while the event loop turns: no dependency is checked, so a Redis outage never restarts us. */
export function healthz(c: Context): Response {
  return c.json({ status: "ok" });
}

/** 200 with the readiness when ok, 503 otherwise; a readiness that throws or hangs is a 503 saying so. */
export function readyz(readiness: () => Promise<Readiness>, timeoutMs: number) {
  return async (c: Context): Promise<Response> => {
    const o = await withDeadline(Promise.resolve().then(readiness), timeoutMs);
    const result = !o.settled
      ? failed(`readiness check did not answer within ${timeoutMs} ms`)
      : "error" in o
        ? failed(`readiness check failed: ${o.error instanceof Error ? o.error.message : String(o.error)}`)
        : o.value;
    return c.json(result, result.ok ? 200 : 503);
  };
}

function failed(detail: string): Readiness {
  return { ok: false, checks: { readiness: { ok: false, detail } } };
}
