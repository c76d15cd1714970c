/** Recording a seed file in the outbox: its valid rows, and the rejected ones with reasons. */

import type { SeedProblem, SeedRow } from "../../port.js";
import type { RecordResult, RequestStatus } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";

/** Every valid row of a seed file, in one transaction. */
export function recordRows(
  sqlite: Sqlite,
  rows: readonly SeedRow[],
  batchId: string,
  sourceFile: string,
  now: string,
): RecordResult {
  const find = prepared(
    sqlite,
    "SELECT status, payload_json AS payloadJson FROM scenario_requests WHERE key = ?",
  );
  // A new key (the common case) costs one statement; only a conflict looks the row up.
  const insert = prepared(
    sqlite,
    `INSERT INTO scenario_requests (key, company_id, project_id, scenario_name, payload_json, parent_key, status,
       batch_id, source_file, source_line, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
     ON CONFLICT(key) DO NOTHING`,
  );
  const adopt = prepared(
    sqlite,
    "UPDATE scenario_requests SET batch_id = ?, source_file = ?, source_line = ?, updated_at = ? WHERE key = ?",
  );
  const result: RecordResult = {
    recorded: 0,
    skipped: { created: 0, exists: 0, failed: 0 },
    changedPayload: [],
  };
  sqlite.transaction(() => {
    for (const row of rows) {
      const payload = JSON.stringify(row.body);
      const inserted = insert.run(
        row.key,
        row.companyId,
        row.projectId,
        row.scenarioName,
        payload,
        row.parentKey,
        batchId,
        sourceFile,
        row.line,
        now,
        now,
      );
      if (inserted.changes === 1) {
        result.recorded++;
        continue;
      }
      const existing = find.get(row.key) as { status: RequestStatus; payloadJson: string };
      if (existing.payloadJson !== payload) result.changedPayload.push(row.key);
      if (existing.status === "created" || existing.status === "exists" || existing.status === "failed") {
        result.skipped[existing.status]++;
      } else {
        adopt.run(batchId, sourceFile, row.line, now, row.key);
        result.recorded++;
      }
    }
  })();
  return result;
}

export function recordRejections(
  sqlite: Sqlite,
  batchId: string,
  sourceFile: string,
  problems: readonly SeedProblem[],
  now: string,
): void {
  const stmt = prepared(
    sqlite,
    "INSERT INTO seed_rejections (batch_id, source_file, line, key, field, reason, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  sqlite.transaction(() => {
    for (const p of problems) stmt.run(batchId, sourceFile, p.line, p.key, p.field, p.reason, now);
  })();
}
