/** Job: one company's pull, scheduled per company by a BullMQ job scheduler. */
import { z } from "zod";
import { type CompanySyncResult, type SyncDeps, syncCompany } from "../src/sync/company.js";

export const NAME = "sync-company";
export const payloadSchema = z.object({ companyId: z.number().int().positive() });
export type Payload = z.infer<typeof payloadSchema>;

export function schedulerId(companyId: number): string {
  return `sync-company-${companyId}`;
}

/** The company of a scheduler id made by `schedulerId`, or null. */
export function companyOfScheduler(key: string): number | null {
  const m = /^sync-company-(\d+)$/.exec(key);
  return m ? Number(m[1]) : null;
}

export const jobTemplateOptions = { removeOnComplete: 100, removeOnFail: 500, attempts: 1 };

export async function process(
  data: unknown,
  deps: SyncDeps,
  reportIdsOf: (companyId: number) => readonly number[],
): Promise<CompanySyncResult> {
  const { companyId } = payloadSchema.parse(data);
  const result = await syncCompany(deps, {
    companyId,
    reportIds: reportIdsOf(companyId),
    trigger: "schedule",
  });
  if (result.status === "failed")
    throw new Error(`sync of company ${companyId} failed: ${result.errors.join("; ")}`);
  return result;
}
