/**
 * Recording a seed file in the outbox: its valid rows, and the rejected ones with reasons.
 * The rows are hand-written SQL: a chunk of rows per statement through unnest() (one parameter
 * per column); `npm run bench:outbox` measured the builder's multi-row INSERT at about 8 times
 * its time. The rejections (few, and not on any path a push waits for) are the builder's.
 */
import { seedRejections } from "../../../tables/postgres/index.js";
import {
  emptyRecordResult,
  type NewRequest,
  type RecordResult,
  type Rejection,
  type RequestStatus,
  tallyRecordedBefore,
} from "../../port-outbox.js";
import { orm, unwrapped } from "../orm.js";
import type { Db, Pool } from "../pool.js";
import { pluck, run } from "../sql.js";
import { textValue } from "../text.js";
import { transaction } from "../tx.js";

/** Rows per statement. */
const CHUNK = 1000;

/** Every valid row of a seed file, in one transaction, a chunk of rows per statement. */
export function recordRows(
  pool: Pool,
  rows: Iterable<NewRequest>,
  batchId: string,
  sourceFile: string,
  now: string,
): Promise<RecordResult> {
  return transaction(pool, async (client) => {
    const result = emptyRecordResult();
    for (const chunk of chunks(rows)) await recordChunk(client, chunk, batchId, sourceFile, now, result);
    return result;
  });
}

/** Chunks of at most CHUNK rows, each key once in a chunk (a repeated key starts a new one). */
function* chunks(rows: Iterable<NewRequest>): Generator<NewRequest[]> {
  let chunk: NewRequest[] = [];
  let keys = new Set<string>();
  for (const row of rows) {
    if (chunk.length >= CHUNK || keys.has(row.key)) {
      yield chunk;
      chunk = [];
      keys = new Set();
    }
    chunk.push(row);
    keys.add(row.key);
  }
  if (chunk.length) yield chunk;
}

async function recordChunk(
  db: Db,
  rows: NewRequest[],
  batchId: string,
  sourceFile: string,
  now: string,
  result: RecordResult,
): Promise<void> {
  // New keys (the common case) are inserted; only the others are looked up.
  const inserted = new Set(
    await pluck<string>(
      db,
      `INSERT INTO scenario_requests (key, company_id, project_id, scenario_name, payload_json, parent_key, status,
         batch_id, source_file, source_line, created_at, updated_at)
       SELECT k, c, p, n, j, pk, 'pending', $8, $9, l, $10, $10
       FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::int[])
         AS t(k, c, p, n, j, pk, l)
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [
        rows.map((r) => r.key),
        rows.map((r) => r.companyId),
        rows.map((r) => r.projectId),
        rows.map((r) => r.scenarioName),
        rows.map((r) => r.payloadJson),
        rows.map((r) => r.parentKey),
        rows.map((r) => r.line),
        batchId,
        sourceFile,
        now,
      ],
    ),
  );
  const others = rows.filter((r) => !inserted.has(r.key));
  result.recorded += rows.length - others.length;
  if (!others.length) return;
  const { rows: found } = await run<{ key: string; status: RequestStatus; payloadJson: string }>(
    db,
    `SELECT key, status, payload_json AS "payloadJson" FROM scenario_requests WHERE key = ANY($1::text[])`,
    [others.map((r) => r.key)],
  );
  const before = new Map(found.map((f) => [f.key, f]));
  const adopt: NewRequest[] = [];
  for (const row of others) {
    const b = before.get(row.key);
    if (b && tallyRecordedBefore(result, row, b)) adopt.push(row);
  }
  if (adopt.length)
    await run(
      db,
      `UPDATE scenario_requests r SET batch_id = $1, source_file = $2, source_line = v.line, updated_at = $3
       FROM unnest($4::text[], $5::int[]) AS v(key, line) WHERE r.key = v.key`,
      [batchId, sourceFile, now, adopt.map((r) => r.key), adopt.map((r) => r.line)],
    );
}

/** The rejected rows, a chunk per statement, in one transaction. */
export async function recordRejections(
  pool: Pool,
  batchId: string,
  sourceFile: string,
  rejections: readonly Rejection[],
  now: string,
): Promise<void> {
  if (!rejections.length) return;
  const values = rejections.map((r) => ({
    batchId,
    sourceFile,
    line: r.line,
    key: textValue(r.key),
    field: textValue(r.field),
    reason: textValue(r.reason),
    recordedAt: now,
  }));
  await unwrapped(
    transaction(pool, async (client) => {
      for (let i = 0; i < values.length; i += CHUNK)
        await orm(client)
          .insert(seedRejections)
          .values(values.slice(i, i + CHUNK));
    }),
  );
}
