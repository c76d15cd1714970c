/**
 * The SQLite outbox adapter. Small writes share one transaction per event-loop turn (group
 * commit): a push worker finishes its jobs in bunches, and a commit costs several times a
 * small write. Each write's promise settles once it is committed. Queries are drizzle's,
 * their conditions those of schema/outbox-states.ts.
 */
import type { OutboxStore } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { GroupCommit } from "../group-commit.js";
import { beginAttempt, endAttempt, getRow, sendable } from "./attempt.js";
import { heldCompanies, hold, probeHeld, release } from "./held.js";
import { failureReasons, inlineParentIds, rowsWithStatus, statusCounts, unsettledCount } from "./read.js";
import { orphans, queuedKeys, takeReady, unsettledChildren } from "./ready.js";
import { recordRejections, recordRows } from "./record.js";
import { block, failMany, learnId, markExists, markFailed, resetFailed, settleCreated } from "./settle.js";

export function sqliteOutbox(sqlite: Sqlite): OutboxStore {
  const group = new GroupCommit(sqlite);
  const write = <T>(fn: () => T) => group.run(fn);
  const read = async <T>(fn: () => T) => fn();
  return {
    record: (rows, batchId, sourceFile, now) =>
      read(() => recordRows(sqlite, rows, batchId, sourceFile, now)),
    recordRejections: (batchId, sourceFile, rejections, now) =>
      read(() => recordRejections(sqlite, batchId, sourceFile, rejections, now)),
    takeReady: (now, filter, page) => write(() => takeReady(sqlite, now, filter, page)),
    orphans: (filter) => read(() => orphans(sqlite, filter)),
    queuedKeys: (filter, page) => read(() => queuedKeys(sqlite, filter, page)),
    sendable: (key) => read(() => sendable(sqlite, key)),
    get: (key) => read(() => getRow(sqlite, key)),
    beginAttempt: (key, seen, now) => write(() => beginAttempt(sqlite, key, seen, now)),
    endAttempt: (key, attempt, settle, now) => write(() => endAttempt(sqlite, key, attempt, settle, now)),
    settleCreated: (key, scenario, now) => write(() => settleCreated(sqlite, key, scenario, now)),
    markExists: (key, message, now) => write(() => markExists(sqlite, key, message, now)),
    markFailed: (key, settle, attempt, now) => write(() => markFailed(sqlite, key, settle, attempt, now)),
    failMany: (keys, settle, now) => write(() => failMany(sqlite, keys, settle, now)),
    block: (keys, settle, now) => write(() => block(sqlite, keys, settle, now)),
    hold: (companyId, settle, now) => write(() => hold(sqlite, companyId, settle, now)),
    release: (companyId, now) => write(() => release(sqlite, companyId, now)),
    probeHeld: (now) => write(() => probeHeld(sqlite, now)),
    heldCompanies: () => read(() => heldCompanies(sqlite)),
    unsettledChildren: (parentKey) => read(() => unsettledChildren(sqlite, parentKey)),
    learnId: (key, id, source, now) => write(() => learnId(sqlite, key, id, source, now)),
    inlineParentIds: (projectId, name) => read(() => inlineParentIds(sqlite, projectId, name)),
    resetFailed: (filter, now) => read(() => resetFailed(sqlite, filter, now)),
    counts: (batchId) => read(() => statusCounts(sqlite, batchId)),
    unsettledCount: (batchId) => read(() => unsettledCount(sqlite, batchId)),
    failureReasons: (batchId) => read(() => failureReasons(sqlite, batchId)),
    rowsWithStatus: (status, opts) => read(() => rowsWithStatus(sqlite, status, opts)),
  };
}
