/**
 * Several companies' syncs side by side, at most `concurrency` at a time. Downloads overlap;
 * each company's apply is one transaction (SQLite serializes them, PostgreSQL runs them on
 * separate connections). Used by the one-shot `sync`; the daemon gets the same from its
 * worker's concurrency.
 */
import { type CompanySyncInput, type CompanySyncResult, type SyncDeps, syncCompany } from "./company.js";

/**
 * `onDone` hears of each company as soon as it ends; `onResult` gets the results in input
 * order, each as soon as it and all before it are done (stable output, like `parallel -k`).
 */
export async function syncCompanies(
  depsFor: (companyId: number) => SyncDeps,
  inputs: readonly CompanySyncInput[],
  concurrency: number,
  on: { onDone?: (r: CompanySyncResult) => void; onResult?: (r: CompanySyncResult) => void } = {},
): Promise<CompanySyncResult[]> {
  const results = new Array<CompanySyncResult | undefined>(inputs.length);
  let next = 0;
  let printed = 0;
  const lane = async () => {
    while (next < inputs.length) {
      const i = next++;
      const input = inputs[i] as CompanySyncInput;
      const r = await syncCompany(depsFor(input.companyId), input);
      results[i] = r;
      on.onDone?.(r);
      for (let done = results[printed]; done !== undefined; done = results[printed]) {
        on.onResult?.(done);
        printed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, inputs.length)) }, lane));
  return results as CompanySyncResult[];
}
