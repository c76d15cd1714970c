/** How a sync or a replay observes the service's schema: the config's schema.*, and its observer. */
import type { z } from "zod";
import { schemaSettings } from "../config/schema.js";
import type { Store } from "../store/port.js";
import { RunObserver } from "./observing.js";

export type SchemaSettings = z.infer<typeof schemaSettings>;

/** The config's defaults: what a sync or replay given no settings does. */
export const DEFAULT_SCHEMA: SchemaSettings = schemaSettings.parse({});

/** The run's observer, with what the store knows of the company's schema now. */
export async function observerFor(store: Store, companyId: number, s: SchemaSettings): Promise<RunObserver> {
  const [known, changes] = await Promise.all([
    store.schema.observed({ companyId }),
    // The contract and the refused records' changes need only the changes that bring types in.
    store.schema.changes({ companyId, kinds: ["added", "type_changed"] }),
  ]);
  return new RunObserver({ valueCap: s.valueCap, contract: s.contract, known, changes }, companyId);
}
