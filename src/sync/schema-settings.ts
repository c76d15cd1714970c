/** How a sync or a replay observes the service's schema: the config's schema.*, and its observer. */
import type { Store } from "../store/port.js";
import { type ObserveSettings, RunObserver } from "./observing.js";

export interface SchemaSettings {
  observe: boolean;
  valueCap: number;
  contract: ObserveSettings["contract"];
}

export const DEFAULT_SCHEMA: SchemaSettings = {
  observe: true,
  valueCap: 50,
  contract: { plan: "evolve", scheduled_report: "evolve" },
};

/** The run's observer, with what the store knows of the company's schema now. */
export async function observerFor(store: Store, companyId: number, s: SchemaSettings): Promise<RunObserver> {
  const [known, changes] = await Promise.all([
    store.schema.observed({ companyId }),
    // The contract and the refused records' changes need only the changes that bring types in.
    store.schema.changes({ companyId, kinds: ["added", "type_changed"] }),
  ]);
  return new RunObserver({ valueCap: s.valueCap, contract: s.contract, known, changes }, companyId);
}
