/**
 * How rows settle beyond their own create: a failed row fails its descendants; a row whose
 * parent exists with its id unknown waits (blocked) until the id is learned; a parent learns
 * its id from the create answer, from the user (set-parent-id), or from another row's inline
 * parent object. Push policy, expressed as calls of small outbox operations.
 */
import type { AttemptKnowledge, OutboxStore, RowFilter, Settle } from "../store/port-outbox.js";

const PARENT_ID_UNKNOWN = "PARENT_ID_UNKNOWN";

/** Why a child waits: said in its row (last_error) and by push-failures / status. */
function waitingForParent(parentKey: string): Settle {
  return {
    code: PARENT_ID_UNKNOWN,
    message: `parent ${parentKey} exists but its id is unknown (its create answer was lost); run: tas-sync set-parent-id ${parentKey} <id>`,
  };
}

/** Why a row waits when its parent is itself waiting (blocked) for the id of `root`. */
function waitingForAncestor(parentKey: string, root: string): Settle {
  return {
    code: PARENT_ID_UNKNOWN,
    message: `parent ${parentKey} waits for the id of ${root}, which exists but whose id is unknown (its create answer was lost); run: tas-sync set-parent-id ${root} <id>`,
  };
}

/**
 * Walk the unsettled rows below `keys`, level by level: `apply` settles each parent's
 * children (and returns how many it changed) before their own children are visited.
 */
async function settleBelow(
  outbox: OutboxStore,
  keys: readonly string[],
  apply: (parent: string, children: string[]) => Promise<number>,
): Promise<number> {
  let changed = 0;
  const seen = new Set<string>();
  const stack = [...keys];
  while (stack.length) {
    const parent = stack.pop() as string;
    if (seen.has(parent)) continue;
    seen.add(parent);
    const children = await outbox.unsettledChildren(parent);
    if (!children.length) continue;
    changed += await apply(parent, children);
    stack.push(...children);
  }
  return changed;
}

/** The row whose id a blocked chain waits for: up from `key` through blocked rows. */
async function blockingRoot(outbox: OutboxStore, key: string): Promise<string> {
  const seen = new Set<string>();
  let current = key;
  for (;;) {
    const row = await outbox.get(current);
    if (row?.status !== "blocked" || row.parentKey === null || seen.has(current)) return current;
    seen.add(current);
    current = row.parentKey;
  }
}

/**
 * Block rows whose parent exists without a known id, or is itself blocked, and every unsettled
 * row below them: all wait for the same id (a grandchild cannot be created before its parent;
 * left pending, it would keep `push --wait` waiting for ever). Returns how many were blocked.
 */
export async function blockUnder(
  outbox: OutboxStore,
  keys: readonly string[],
  parentKey: string,
  now: string,
): Promise<number> {
  const root = await blockingRoot(outbox, parentKey);
  const why = root === parentKey ? waitingForParent(root) : waitingForAncestor(parentKey, root);
  const blocked = await outbox.block(keys, why, now);
  return (
    blocked +
    (await settleBelow(outbox, keys, (parent, children) =>
      outbox.block(children, waitingForAncestor(parent, root), now),
    ))
  );
}

/**
 * Fail a row and every unsettled descendant ("parent failed"); returns how many rows failed.
 * `onFailed` hears the keys this call failed (the row, then each level below it).
 */
export async function failWithDescendants(
  outbox: OutboxStore,
  key: string,
  settle: Settle,
  attempt: AttemptKnowledge,
  now: string,
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<number> {
  if (!(await outbox.markFailed(key, settle, attempt, now))) return 0;
  await onFailed?.([key]);
  return 1 + (await failDescendants(outbox, key, now, onFailed));
}

/**
 * A job that failed for good outside the normal outcomes (Redis or database trouble) must not
 * leave its row queued with no job behind it: the row fails, and its descendants with it.
 */
export async function settleAbandoned(
  outbox: OutboxStore,
  key: string,
  message: string,
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<number> {
  const settle = { code: "JOB_FAILED", message: `the job failed for good: ${message}` };
  return failWithDescendants(outbox, key, settle, "none", new Date().toISOString(), onFailed);
}

function failDescendants(
  outbox: OutboxStore,
  key: string,
  now: string,
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<number> {
  return settleBelow(outbox, [key], async (parent, children) => {
    const failed = await outbox.failMany(
      children,
      { code: "PARENT_FAILED", message: `parent failed: ${parent}` },
      now,
    );
    // All of them, unless another process settled some meanwhile (which it then reports).
    if (failed === children.length) await onFailed?.(children);
    return failed;
  });
}

/**
 * Settle what the parents decide, then mark ready rows queued: children of a failed parent
 * fail; children of a parent that exists without a known id are blocked, and so are the rows
 * below a blocked parent (they wait for the same id). Returns the keys to queue now;
 * `onFailed` hears the keys it failed.
 */
export async function queueReady(
  outbox: OutboxStore,
  now: string,
  filter: RowFilter = {},
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<string[]> {
  await settleOrphans(outbox, now, filter, onFailed);
  return outbox.takeReady(now, filter);
}

/**
 * Rows per page of queueReadyInPages and of the reconciler: one addBulk call of the push queue
 * (queue/push.ts). Pages of 4,000 (four calls in flight) held about 50 MB more garbage at the
 * peak of a 300,000-row queue (`npm run bench:seed`).
 */
export const READY_PAGE = 1000;

/**
 * Every page of keys that `next` gives (after the last key of the page before), each handed to
 * `onPage`; the next page is read while the page before is handed on (one page ahead, at most).
 * Returns how many keys there were.
 */
export async function eachPage(
  next: (after: string | undefined) => Promise<string[]>,
  onPage: (keys: readonly string[]) => Promise<void>,
): Promise<number> {
  let count = 0;
  let handing: Promise<void> = Promise.resolve();
  for (let after: string | undefined; ; ) {
    const keys = await next(after);
    await handing;
    count += keys.length;
    if (keys.length) {
      handing = onPage(keys);
      // Handled when awaited above or below; meanwhile a failure is not "unhandled".
      handing.catch(() => {});
    } else handing = Promise.resolve();
    if (keys.length < READY_PAGE) break;
    after = keys[keys.length - 1];
  }
  await handing;
  return count;
}

/**
 * queueReady a page at a time: each page of ready rows is queued (its own transaction) and
 * handed to `onPage` (which gives them their jobs), so that a push of a million rows holds a
 * page or two of keys, not a million. Returns how many rows were queued. A process stopped
 * between a page's transaction and its jobs leaves its rows queued without a job: the
 * reconciler's next round gives them one (push/reconcile.ts), as for any queued row.
 */
export async function queueReadyInPages(
  outbox: OutboxStore,
  now: string,
  filter: RowFilter,
  onPage: (keys: readonly string[]) => Promise<void>,
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<number> {
  await settleOrphans(outbox, now, filter, onFailed);
  return eachPage((after) => outbox.takeReady(now, filter, { limit: READY_PAGE, after }), onPage);
}

/** The first half of queueReady: what the parents decide for the unsettled rows below them. */
async function settleOrphans(
  outbox: OutboxStore,
  now: string,
  filter: RowFilter,
  onFailed?: (keys: readonly string[]) => Promise<void>,
): Promise<void> {
  const blocked = new Map<string, string[]>();
  for (const o of await outbox.orphans(filter)) {
    if (o.parentStatus === "failed") {
      await failWithDescendants(
        outbox,
        o.key,
        { code: "PARENT_FAILED", message: `parent failed: ${o.parentKey}` },
        "none",
        now,
        onFailed,
      );
    } else if (o.status !== "blocked") {
      // Its parent exists without an id, or is blocked (a process stopped between blocking
      // a row and the rows below it): it waits for the same id.
      blocked.set(o.parentKey, [...(blocked.get(o.parentKey) ?? []), o.key]);
    }
  }
  for (const [parentKey, keys] of blocked) await blockUnder(outbox, keys, parentKey, now);
}

/**
 * A row ended `exists` without its id: learn it from another row's inline parent object if one
 * names this scenario; else block its children until someone does. Returns children now ready.
 */
export async function afterExistsWithoutId(
  outbox: OutboxStore,
  row: { key: string; projectId: number; scenarioName: string },
  now: string,
): Promise<string[]> {
  const ids = await outbox.inlineParentIds(row.projectId, row.scenarioName);
  if (ids.length === 1 && (await outbox.learnId(row.key, ids[0] as number, "inline-parent", now)))
    return outbox.takeReady(now, { parentKey: row.key });
  const children = await outbox.unsettledChildren(row.key);
  if (children.length) await blockUnder(outbox, children, row.key, now);
  return [];
}
