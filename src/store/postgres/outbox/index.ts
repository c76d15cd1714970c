/**
 * The PostgreSQL outbox adapter. Writes share one transaction per event-loop turn (group
 * commit, ../group-commit.ts) on one connection; reads run on the pool. `record`,
 * `recordRejections` and `resetFailed` are transactions of their own, as on SQLite. Queries
 * are drizzle's, their conditions those of schema/outbox-states.ts.
 */
import type { OutboxStore } from "../../port-outbox.js";
import { PgGroupCommit } from "../group-commit.js";
import { unwrapped } from "../orm.js";
import type { Pool, PoolClient } from "../pool.js";
import { transaction } from "../tx.js";
import { beginAttempt, endAttempt, getRow, sendable } from "./attempt.js";
import { heldCompanies, hold, probeHeld, release } from "./held.js";
import { failureReasons, inlineParentIds, rowsWithStatus, statusCounts, unsettledCount } from "./read.js";
import { orphans, queuedKeys, takeReady, unsettledChildren } from "./ready.js";
import { recordRejections, recordRows } from "./record.js";
import { block, failMany, learnId, markExists, markFailed, resetFailed, settleCreated } from "./settle.js";

export function postgresOutbox(pool: Pool, group = new PgGroupCommit(pool)): OutboxStore {
  const write = <T>(fn: (c: PoolClient) => Promise<T>) => group.run((c) => unwrapped(fn(c)));
  const store: OutboxStore = {
    record: (rows, batchId, sourceFile, now) => recordRows(pool, rows, batchId, sourceFile, now),
    recordRejections: (batchId, sourceFile, rejections, now) =>
      recordRejections(pool, batchId, sourceFile, rejections, now),
    takeReady: (now, filter, page) => write((c) => takeReady(c, now, filter, page)),
    orphans: (filter) => orphans(pool, filter),
    queuedKeys: (filter, page) => queuedKeys(pool, filter, page),
    sendable: (key) => sendable(pool, key),
    get: (key) => getRow(pool, key),
    beginAttempt: (key, seen, now) => write((c) => beginAttempt(c, key, seen, now)),
    endAttempt: (key, attempt, settle, now) => write((c) => endAttempt(c, key, attempt, settle, now)),
    settleCreated: (key, scenario, now) => write((c) => settleCreated(c, key, scenario, now)),
    markExists: (key, message, now) => write((c) => markExists(c, key, message, now)),
    markFailed: (key, settle, attempt, now) => write((c) => markFailed(c, key, settle, attempt, now)),
    failMany: (keys, settle, now) => write((c) => failMany(c, keys, settle, now)),
    block: (keys, settle, now) => write((c) => block(c, keys, settle, now)),
    hold: (companyId, settle, now) => write((c) => hold(c, companyId, settle, now)),
    release: (companyId, now) => write((c) => release(c, companyId, now)),
    probeHeld: (now) => write((c) => probeHeld(c, now)),
    heldCompanies: () => heldCompanies(pool),
    unsettledChildren: (parentKey) => unsettledChildren(pool, parentKey),
    learnId: (key, id, source, now) => write((c) => learnId(c, key, id, source, now)),
    inlineParentIds: (projectId, name) => inlineParentIds(pool, projectId, name),
    resetFailed: (filter, now) => transaction(pool, (c) => resetFailed(c, filter, now)),
    counts: (batchId) => statusCounts(pool, batchId),
    unsettledCount: (batchId) => unsettledCount(pool, batchId),
    failureReasons: (batchId) => failureReasons(pool, batchId),
    rowsWithStatus: (status, opts) => rowsWithStatus(pool, status, opts),
  };
  // Every operation fails with the driver's error, not drizzle's wrapper of it.
  return Object.fromEntries(
    Object.entries(store).map(([name, op]) => [
      name,
      (...args: unknown[]) => unwrapped((op as (...a: unknown[]) => Promise<unknown>)(...args)),
    ]),
  ) as unknown as OutboxStore;
}
