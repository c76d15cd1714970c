/** Settings that are valid but probably not what was meant: said once at start (pure). */
import type { Config } from "./schema.js";

export function configWarnings(cfg: Config): string[] {
  const warnings: string[] = [];
  const rate = cfg.push.ratePerSecond;
  const cap = cfg.http.maxRequestsPerSecond;
  if (rate !== null && rate > cap)
    warnings.push(
      `push.ratePerSecond (${rate}) is above http.maxRequestsPerSecond (${cap}): each process sends at most ${cap} requests per second; raise http.maxRequestsPerSecond to reach ${rate}`,
    );
  return warnings;
}
