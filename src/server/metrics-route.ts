/** /metrics: the Prometheus text exposition of the registry passed in. */
import type { Context } from "hono";
import type { Registry } from "prom-client";

export function metricsRoute(registry: Registry) {
  return async (c: Context): Promise<Response> => {
    const text = await registry.metrics();
    return c.body(text, 200, { "Content-Type": registry.contentType });
  };
}
