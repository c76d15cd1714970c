/** Recording a seed file in the outbox: its valid rows, and the rejected ones with reasons. */
import { eq, sql } from "drizzle-orm";
import { seedRejections } from "../../../tables/sqlite/index.js";
import {
  emptyRecordResult,
  type NewRequest,
  type RecordResult,
  type Rejection,
  tallyRecordedBefore,
} from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { arg, once, rendered, t } from "./tables.js";

const v = (name: string) => sql.placeholder(name);

/** Every row, in one transaction: a new key (the common case) costs one statement. */
export function recordRows(
  sqlite: Sqlite,
  rows: Iterable<NewRequest>,
  batchId: string,
  sourceFile: string,
  now: string,
): RecordResult {
  // The builder's INSERT, run by the driver (tables.ts `rendered`: bench:outbox).
  const insert = rendered(sqlite, "record:insert", (db) =>
    db
      .insert(t)
      .values({
        key: v("key"),
        companyId: v("companyId"),
        projectId: v("projectId"),
        scenarioName: v("scenarioName"),
        payloadJson: v("payloadJson"),
        parentKey: v("parentKey"),
        status: "pending",
        batchId: v("batchId"),
        sourceFile: v("sourceFile"),
        sourceLine: v("line"),
        createdAt: v("now"),
        updatedAt: v("now"),
      })
      .onConflictDoNothing(),
  );
  const find = once(sqlite, "record:find", (db) =>
    db
      .select({ status: t.status, payloadJson: t.payloadJson })
      .from(t)
      .where(eq(t.key, v("key")))
      .prepare(),
  );
  const adopt = once(sqlite, "record:adopt", (db) =>
    db
      .update(t)
      .set({
        batchId: arg("batchId"),
        sourceFile: arg("sourceFile"),
        sourceLine: arg("line"),
        updatedAt: arg("now"),
      })
      .where(eq(t.key, v("key")))
      .prepare(),
  );
  const result = emptyRecordResult();
  // One object for every row, its fields set in place: a spread per row cost more than the INSERT.
  const at: Record<string, unknown> = { batchId, sourceFile, now };
  sqlite.transaction(() => {
    for (const row of rows) {
      at.key = row.key;
      at.companyId = row.companyId;
      at.projectId = row.projectId;
      at.scenarioName = row.scenarioName;
      at.payloadJson = row.payloadJson;
      at.parentKey = row.parentKey;
      at.line = row.line;
      if (insert.run(at).changes === 1) {
        result.recorded++;
        continue;
      }
      const before = find.get({ key: row.key });
      if (before && tallyRecordedBefore(result, row, before)) adopt.run(at);
    }
  })();
  return result;
}

export function recordRejections(
  sqlite: Sqlite,
  batchId: string,
  sourceFile: string,
  rejections: readonly Rejection[],
  now: string,
): void {
  const insert = once(sqlite, "record:rejection", (db) =>
    db
      .insert(seedRejections)
      .values({
        batchId: v("batchId"),
        sourceFile: v("sourceFile"),
        line: v("line"),
        key: v("key"),
        field: v("field"),
        reason: v("reason"),
        recordedAt: v("now"),
      })
      .prepare(),
  );
  sqlite.transaction(() => {
    for (const r of rejections) insert.run({ ...r, batchId, sourceFile, now });
  })();
}
