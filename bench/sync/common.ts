/** What the phases of bench:sync share: the simulator's company, runs of a side, figures. */
import { fmt, MB } from "../support.js";
import type { ChildInput, ChildResult } from "./child.js";

export type Sim = Pick<ChildInput, "baseUrl" | "token" | "companyId">;
/** A side's runs, and the best of them. */
export type Runs = { best: ChildResult; all: ChildResult[] };

export const ms = (n: number) => `${fmt(n)} ms`;
export const x = (n: number) => `${fmt(n, 2)}x`;
export const mb = (n: number) => `${fmt(n / MB, 1)} MB`;
export const kb = (n: number) => `${fmt(n / 1000)} kB`;
/** How long a sync's write lock waited for the worker thread's reading, if a worker read the list. */
export const waited = (r: ChildResult) =>
  r.readerWaitMs === undefined ? "none (no worker read the list)" : ms(r.readerWaitMs);
/** Every run's figure, in the order run. */
export const all = (runs: ChildResult[], pick: (r: ChildResult) => number | undefined) =>
  `(runs: ${runs.map((r) => fmt(pick(r) ?? 0)).join(", ")})`;
