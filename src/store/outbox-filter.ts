/** A RowFilter as a condition on the outbox's columns: the same for both adapters. */
import { type AnyColumn, and, eq, type SQL } from "drizzle-orm";
import type { RowFilter } from "./port-outbox.js";

export interface FilterColumns {
  batchId: AnyColumn;
  parentKey: AnyColumn;
  companyId: AnyColumn;
}

/** `conditions` and the filter's, all of them; undefined parts are left out. */
export function whereAll(t: FilterColumns, filter: RowFilter, ...conditions: (SQL | undefined)[]): SQL {
  return and(
    ...conditions,
    filter.batchId === undefined ? undefined : eq(t.batchId, filter.batchId),
    filter.parentKey === undefined ? undefined : eq(t.parentKey, filter.parentKey),
    filter.companyId === undefined ? undefined : eq(t.companyId, filter.companyId),
  ) as SQL;
}
