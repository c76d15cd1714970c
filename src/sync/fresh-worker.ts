/**
 * The fresh reader's worker thread (./fresh-reader.ts): reads (parses, checks, normalizes) the
 * plan list's new or changed elements as they arrive, decides what each becomes
 * (./fresh-decisions.ts), observes them, and writes the decisions to a file (./op-spool.ts) that
 * the snapshot's transaction reads as it grows. Messages come in list order: the known plans
 * matched since the last one, then elements, held in memory (`inline`) or in the spool file
 * (`spooled`: a run of its lines); `end` when the list is in.
 */
import { parentPort, workerData } from "node:worker_threads";
import { readPlan } from "../normalize/read.js";
import { FreshDecisions } from "./fresh-decisions.js";
import type { DecidedEnd, ToWorker, WorkerData } from "./fresh-messages.js";
import { RunObserver } from "./observing.js";
import { beat, OpSpoolWriter } from "./op-spool.js";
import { readRun } from "./spool.js";

const data = workerData as WorkerData;
const port = parentPort as NonNullable<typeof parentPort>;
const out = new OpSpoolWriter(data.dir, data.progress, data.decidedFd);
let failed = false;

try {
  const observer = data.observer ? RunObserver.carryOn(data.observer) : null;
  const matched = new Map<number, number>();
  const decisions = new FreshDecisions(data.companyId, observer, (id) => matched.get(id));
  const { spoolFd } = data;

  const decide = (elements: readonly Buffer[], positions: Float64Array, hashes: readonly string[]) => {
    elements.forEach((bytes, k) => {
      beat(data.progress);
      const read = readPlan(bytes);
      const d = decisions.decide({ position: positions[k] as number, hash: hashes[k] as string, read });
      if (d) out.append(d);
    });
  };

  port.on("message", (m: ToWorker) => {
    if (failed) return;
    try {
      for (let i = 0; i < m.matchedIds.length; i++)
        matched.set(m.matchedIds[i] as number, m.matchedPositions[i] as number);
      if (m.type === "inline") {
        const all = Buffer.from(m.data);
        let start = 0;
        const elements = Array.from(m.ends, (end) => {
          const b = all.subarray(start, end);
          start = end;
          return b;
        });
        decide(elements, m.positions, m.hashes);
      } else if (m.type === "spooled") {
        decide(readRun(spoolFd, m.from, m.to), m.positions, m.hashes);
      } else {
        const end: DecidedEnd = {
          seenIds: [...decisions.seen.keys()],
          seenPositions: [...decisions.seen.values()],
          anonymous: decisions.anonymous,
          foreignCount: decisions.foreignCount,
          foreignCompany: decisions.foreignCompany,
          observer: observer?.state() ?? null,
        };
        out.end(end);
      }
    } catch (err) {
      fail(err);
    }
  });
} catch (err) {
  fail(err);
}

/** Not expected (reading a record never throws): the reader of the file says why. */
function fail(err: unknown): void {
  if (failed) return;
  failed = true;
  out.end({ error: err instanceof Error ? err.message : String(err) } satisfies DecidedEnd);
}
