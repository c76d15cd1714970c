import { closeSync, openSync, readSync } from "node:fs";
import { SeedFormatError } from "./errors.js";
import { formatFromPath } from "./format.js";
import { type ChunkSource, checkSeed, type SeedCheck, validRows } from "./parse.js";
import type { SeedOptions, SeedRow } from "./types.js";

/** Bytes read at a time: a 1M-row file is never in memory whole. */
const CHUNK = 1024 * 1024;

/** A checked seed file: its problems at once, its valid rows read again when asked for. */
export interface SeedFile {
  check: SeedCheck;
  /** The valid rows, in file order, read from the file again (one at a time). */
  rows(): Generator<SeedRow & { index: number }>;
}

/** The file's bytes a chunk at a time, each time the source is called. */
function fileChunks(path: string): ChunkSource {
  return function* () {
    const fd = openFile(path);
    try {
      for (;;) {
        const buffer = Buffer.allocUnsafe(CHUNK);
        const n = readSync(fd, buffer, 0, CHUNK, null);
        if (n === 0) return;
        yield buffer.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  };
}

function openFile(path: string): number {
  try {
    return openSync(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SeedFormatError(
      code === "ENOENT"
        ? `seed file not found: ${path}`
        : `cannot read seed file ${path}: ${code ?? String(err)}`,
    );
  }
}

/** Reads and checks a seed file from disk in bounded memory; the format comes from its extension. */
export async function readSeedFile(path: string, opts: SeedOptions): Promise<SeedFile> {
  const format = formatFromPath(path); // before reading: a wrong extension fails fast
  const source = fileChunks(path);
  const check = checkSeed(source, format, opts);
  return { check, rows: () => validRows(source, format, opts, check) };
}
