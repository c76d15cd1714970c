/**
 * The PostgreSQL outbox adapter. Writes share one transaction per event-loop turn (group
 * commit, ../group-commit.ts) on one connection; reads run on the pool. `record`,
 * `recordRejections` and `resetFailed` are transactions of their own, as on SQLite.
 */
import type { OutboxStore } from "../../port-outbox.js";
import { PgGroupCommit } from "../group-commit.js";
import type { Pool, PoolClient } from "../pool.js";
import { beginAttempt, endAttempt, getRow, sendable } from "./attempt.js";
import { failureReasons, inlineParentIds, rowsWithStatus, statusCounts, unsettledCount } from "./read.js";
import { orphans, queuedKeys, takeReady, unsettledChildren } from "./ready.js";
import { recordRejections, recordRows } from "./record.js";
import { block, failMany, learnId, markCreated, markExists, markFailed, resetFailed } from "./settle.js";

export function postgresOutbox(pool: Pool, group = new PgGroupCommit(pool)): OutboxStore {
  const write = <T>(fn: (c: PoolClient) => Promise<T>) => group.run(fn);
  return {
    record: (rows, batchId, sourceFile, now) => recordRows(pool, rows, batchId, sourceFile, now),
    recordRejections: (batchId, sourceFile, problems, now) =>
      recordRejections(pool, batchId, sourceFile, problems, now),
    takeReady: (now, filter) => write((c) => takeReady(c, now, filter)),
    orphans: (filter) => orphans(pool, filter),
    queuedKeys: (filter) => queuedKeys(pool, filter),
    sendable: (key) => sendable(pool, key),
    get: (key) => getRow(pool, key),
    beginAttempt: (key, now) => write((c) => beginAttempt(c, key, now)),
    endAttempt: (key, attempt, settle, now) => write((c) => endAttempt(c, key, attempt, settle, now)),
    markCreated: (key, scenario, now) => write((c) => markCreated(c, key, scenario, now)),
    markExists: (key, message, now) => write((c) => markExists(c, key, message, now)),
    markFailed: (key, settle, attempt, now) => write((c) => markFailed(c, key, settle, attempt, now)),
    failMany: (rows, now) => write((c) => failMany(c, rows, now)),
    block: (keys, settle, now) => write((c) => block(c, keys, settle, now)),
    unsettledChildren: (parentKey) => unsettledChildren(pool, parentKey),
    learnId: (key, id, source, now) => write((c) => learnId(c, key, id, source, now)),
    inlineParentIds: (projectId, name) => inlineParentIds(pool, projectId, name),
    resetFailed: (filter, now) => resetFailed(pool, filter, now),
    counts: (batchId) => statusCounts(pool, batchId),
    unsettledCount: (batchId) => unsettledCount(pool, batchId),
    failureReasons: (batchId) => failureReasons(pool, batchId),
    rowsWithStatus: (status, opts) => rowsWithStatus(pool, status, opts),
  };
}
