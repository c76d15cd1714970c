/** Settings that are valid but probably not what was meant: said once at start (pure). */
import type { Config } from "./index.js";

export function configWarnings(cfg: Config): string[] {
  const warnings: string[] = [];
  const rate = cfg.push.ratePerSecond;
  const cap = cfg.http.maxRequestsPerSecond;
  if (rate !== null && rate > cap)
    warnings.push(
      `push.ratePerSecond (${rate}) is above http.maxRequestsPerSecond (${cap}): each process sends at most ${cap} requests per second; raise http.maxRequestsPerSecond to reach ${rate}`,
    );
  if (cfg.push.lockDurationMs < cfg.http.timeoutMs)
    warnings.push(
      `push.lockDurationMs (${cfg.push.lockDurationMs} ms) is shorter than http.timeoutMs (${cfg.http.timeoutMs} ms): a create still waiting for its answer could be taken over by another worker`,
    );
  return warnings;
}
