/**
 * The main thread's side of the fresh reader: a worker thread (./fresh-worker.ts) that reads and
 * decides the plan list's new or changed elements as they arrive, so that the thread holding
 * the snapshot's transaction reads none of them (it decodes the rows the worker wrote) and the
 * reading runs on the other core, beside the download and then beside the writes.
 * Started once the elements kept in memory pass the read-ahead budget (a large sync); a sync
 * that finds a few changes reads them on the main thread instead, without a thread to start.
 */
import { closeSync, existsSync, openSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { ToWorker, WorkerData } from "./fresh-messages.js";
import type { RunObserver } from "./observing.js";
import { decidedPath, type OpProgress, opProgress, STALL_MS } from "./op-spool.js";

/**
 * The worker's module: beside this one, built or bundled (dist/cli/); from the TypeScript source
 * (tests run it), loaded through tsx, a development dependency.
 */
function workerEntry(): URL | string {
  const here = import.meta.url;
  if (here.endsWith(".ts"))
    return `import("tsx/esm/api").then((tsx) => tsx.tsImport(${JSON.stringify(new URL("./fresh-worker.ts", here).href)}, ${JSON.stringify(here)}))`;
  for (const path of ["./fresh-worker.js", "../fresh-worker.js"]) {
    const url = new URL(path, here);
    if (existsSync(url)) return url;
  }
  throw new Error(`the plan reader's worker module is missing beside ${here} (run npm run build)`);
}

export class FreshReader {
  readonly #worker: Worker;
  /** Where the worker writes its decisions, and how far it has. */
  readonly decided: { path: string; progress: OpProgress };
  #fds: number[];
  /** Elements handed to the worker so far. */
  #told = 0;
  #ids: number[] = [];
  #positions: number[] = [];

  /** `spool`: the list's spool file, and its folder, where the worker writes its decisions too. */
  constructor(companyId: number, observer: RunObserver | null, spool: { path: string; dir: string }) {
    const entry = workerEntry();
    const progress = opProgress();
    this.decided = { path: decidedPath(spool.dir), progress };
    // Opened here (made before its reader opens it, closed once the thread has stopped).
    const spoolFd = openSync(spool.path, "r");
    let decidedFd: number;
    try {
      decidedFd = openSync(this.decided.path, "w");
    } catch (err) {
      closeSync(spoolFd);
      throw err;
    }
    this.#fds = [spoolFd, decidedFd];
    const workerData: WorkerData = {
      companyId,
      observer: observer?.handOver() ?? null,
      dir: spool.dir,
      spoolFd,
      decidedFd,
      progress,
    };
    try {
      this.#worker = new Worker(entry, { workerData, eval: typeof entry === "string" });
    } catch (err) {
      for (const fd of this.#fds) closeSync(fd);
      throw err;
    }
    // A thread that dies (out of memory) writes no end frame: its reader must not wait for one.
    const gone = () => {
      Atomics.store(progress, 1, 1n);
      Atomics.notify(progress, 0);
    };
    this.#worker.on("error", gone);
    this.#worker.on("exit", gone);
  }

  /** A known plan received unchanged, at this position: told to the worker with its next message. */
  matched(id: number, position: number): void {
    this.#ids.push(id);
    this.#positions.push(position);
  }

  /** Elements held in memory. */
  inline(elements: readonly { position: number; hash: string; bytes: Buffer }[]): void {
    if (!elements.length) return;
    this.#told += elements.length;
    const ends = new Uint32Array(elements.length);
    let end = 0;
    elements.forEach((e, k) => {
      end += e.bytes.length;
      ends[k] = end;
    });
    // One buffer of its own (not a slice of Node's pool): transferred, not copied again.
    const own = new Uint8Array(end);
    elements.forEach((e, k) => {
      own.set(e.bytes, (ends[k] as number) - e.bytes.length);
    });
    this.#post(
      {
        type: "inline",
        data: own.buffer,
        ends,
        positions: Float64Array.from(elements, (e) => e.position),
        hashes: elements.map((e) => e.hash),
        ...this.#matched(),
      },
      [own.buffer, ends.buffer],
    );
  }

  /** A run of the spool file's lines (`from`, `to`: bytes), one per element. */
  spooled(from: number, to: number, positions: readonly number[], hashes: readonly string[]): void {
    this.#told += positions.length;
    this.#post({
      type: "spooled",
      from,
      to,
      positions: Float64Array.from(positions),
      hashes: hashes as string[],
      ...this.#matched(),
    });
  }

  /**
   * Once every element was told: waits until the worker has read them all, when no more than
   * `most` are left to read (then the transaction never waits for a thread that starts or
   * reads a short tail); with more left, returns at once and the worker reads on beside the
   * writes. Does not block the event loop.
   */
  async settle(most: number): Promise<void> {
    const { progress } = this.decided;
    // The worker's heartbeat moves once per element it reads.
    let heartbeat = Atomics.load(progress, 2);
    if (this.#told - Number(heartbeat) > most) return;
    let since = Date.now();
    while (Atomics.load(progress, 1) === 0n) {
      const w = Atomics.waitAsync(progress, 0, Atomics.load(progress, 0), 1000);
      if (w.async) await w.value;
      const now = Atomics.load(progress, 2);
      if (now !== heartbeat) since = Date.now();
      // A thread that stands still: the transaction's reader says so (readOps), not this wait.
      else if (Date.now() - since > STALL_MS) return;
      heartbeat = now;
    }
  }

  /** Every element was told: the worker ends its decisions' file once it has read them all. */
  finish(): void {
    this.#post({ type: "end", ...this.#matched() });
  }

  /** Stops the worker, then closes its files (they go with the spool's folder). */
  dispose(): void {
    const fds = this.#fds;
    this.#fds = [];
    void this.#worker.terminate().finally(() => {
      for (const fd of fds) closeSync(fd);
    });
  }

  #matched(): { matchedIds: Float64Array; matchedPositions: Float64Array } {
    const m = {
      matchedIds: Float64Array.from(this.#ids),
      matchedPositions: Float64Array.from(this.#positions),
    };
    this.#ids = [];
    this.#positions = [];
    return m;
  }

  #post(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    transfer.push(m.matchedIds.buffer as ArrayBuffer, m.matchedPositions.buffer as ArrayBuffer);
    this.#worker.postMessage(m, transfer);
  }
}
