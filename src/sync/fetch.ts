/**
 * The network half of a sync, with no transaction open: the company's reports, then its plan
 * list, each element held against the index as it arrives (./plan-list.ts).
 */
import type { TasClient } from "../api/client.js";
import {
  ApiError,
  InvalidCredentialsError,
  isUnreachable,
  ResponseTooLargeError,
  UnauthorizedError,
} from "../api/errors.js";
import type { Logger } from "../log.js";
import type { SnapshotIndex } from "../store/port-snapshot.js";
import type { RunObserver } from "./observing.js";
import { PlanListReceiver } from "./plan-list.js";
import type { PlanList, ReportFetch } from "./snapshot.js";

export interface Fetched {
  reports: ReportFetch[];
  plans: PlanList;
  /** Deletes what the plan list left on disk. */
  dispose(): void;
}

export interface FetchOptions {
  /** The run is to stop: checked between records (it throws its reason). */
  signal: AbortSignal;
  onProgress: (phase: "reports" | "plans", records: number, bytes: number) => void;
  log: Logger;
  readAheadBytes?: number;
  /** The run's observer: the new or changed plans are observed as they are read. */
  observer: RunObserver | null;
}

export async function fetchSnapshot(
  client: TasClient,
  companyId: number,
  reportIds: readonly number[],
  index: SnapshotIndex,
  opts: FetchOptions,
): Promise<Fetched> {
  opts.onProgress("reports", 0, 0);
  const reports = await fetchReports(client, reportIds, opts.signal);
  opts.log.debug({ reports: reports.length }, "reports fetched");
  const list = new PlanListReceiver(index.plans, {
    companyId,
    observer: opts.observer,
    ...(opts.readAheadBytes === undefined ? {} : { readAheadBytes: opts.readAheadBytes }),
  });
  let tail: Buffer | null = null;
  try {
    await client.streamPlans(
      {
        onRecord: (bytes) => {
          opts.signal.throwIfAborted();
          list.add(bytes);
          opts.onProgress("plans", list.count, list.bytes);
        },
        onRestart: () => list.reset(),
        onBrokenOff: (t) => {
          tail = t;
        },
      },
      opts.signal,
    );
    opts.log.debug(
      { records: list.count, bytes: list.bytes, fresh: list.freshCount },
      "plan list received; applying",
    );
    return { reports, plans: { list, cutOff: null }, dispose: () => list.dispose() };
  } catch (err) {
    if (!(err instanceof ApiError)) {
      list.dispose();
      throw err;
    }
    // Broke off for good (a connection lost, a body cut short): what arrived whole is still the
    // service's word on those plans. A list past the size limits is refused whole.
    if (list.count > 0 && !(err instanceof ResponseTooLargeError)) {
      opts.log.debug(
        { records: list.count, err: err.message },
        "plan list broke off; applying what came whole",
      );
      return { reports, plans: { list, cutOff: { error: err, tail } }, dispose: () => list.dispose() };
    }
    list.dispose();
    return { reports, plans: { error: err }, dispose: () => {} };
  }
}

/** Reports are few: fetch them first, one at a time (the rate cap applies). */
async function fetchReports(
  client: TasClient,
  ids: readonly number[],
  signal: AbortSignal,
): Promise<ReportFetch[]> {
  const out: ReportFetch[] = [];
  for (const id of ids) {
    signal.throwIfAborted();
    try {
      out.push({ id, text: await client.getScheduledReport(id) });
    } catch (err) {
      // Refused credentials fail the whole company with one error, not one per report
      // followed by the same failure for the plan list (and a token request each time).
      if (err instanceof UnauthorizedError || err instanceof InvalidCredentialsError) throw err;
      // So do a token that could not be had and a service that cannot be reached: one line
      // for the company, each request failing at once rather than one retry budget each.
      if (err instanceof ApiError && (err.operation === "token" || isUnreachable(err))) throw err;
      if (!(err instanceof ApiError)) throw err;
      out.push({ id, error: err });
    }
  }
  return out;
}
