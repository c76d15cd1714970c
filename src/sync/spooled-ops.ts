/**
 * Operations made before the transaction that applies them: a replay's every record read
 * (parsed, checked, normalized) and decided with no write lock held, the operations waiting in
 * a decisions file (./op-spool.ts) rather than in memory.
 */
import { rmSync } from "node:fs";
import type { SnapshotOp } from "../store/port-snapshot.js";
import { OpSpoolWriter } from "./op-spool.js";
import { readOps } from "./op-spool-reader.js";
import { spoolDir } from "./spool.js";

/** Operations made before a transaction, in a file, for the transaction to read back. */
export interface SpooledOps<E> {
  /** Every operation, in the order made, then what their generator returned (once). */
  read(): Generator<SnapshotOp, E>;
  /** Deletes the file. */
  dispose(): void;
}

/**
 * Runs `ops` to its end now, before the transaction that applies them opens: whatever reading
 * the records takes (parsing, checking, normalizing: a replay of 100,000 plans) is done without
 * the write lock, and the operations wait in a file rather than in memory (a plan's rows in
 * bytes, ./rows-codec.ts). The transaction then only decodes and writes them.
 */
export function spoolOps<E>(ops: Generator<SnapshotOp, E>): SpooledOps<E> {
  const dir = spoolDir();
  const gone = () => rmSync(dir, { recursive: true, force: true });
  let out: OpSpoolWriter | null = null;
  try {
    const writer = new OpSpoolWriter(dir);
    out = writer;
    let step = ops.next();
    for (; !step.done; step = ops.next()) writer.append(step.value);
    writer.end(step.value);
    return { read: () => readOps<E, SnapshotOp>(writer.path), dispose: gone };
  } catch (err) {
    // What went wrong is the error to tell, whatever the cleanup meets.
    try {
      out?.close();
      gone();
    } catch {}
    throw err;
  }
}
