import { readFile } from "node:fs/promises";
import { SeedFormatError } from "./errors.js";
import { formatFromPath } from "./format.js";
import { parseSeed } from "./parse.js";
import type { SeedOptions, SeedParseResult } from "./types.js";

/** Reads a seed file from disk; the format comes from its extension. */
export async function readSeedFile(path: string, opts: SeedOptions): Promise<SeedParseResult> {
  const format = formatFromPath(path); // before reading: a wrong extension fails fast
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SeedFormatError(
      code === "ENOENT"
        ? `seed file not found: ${path}`
        : `cannot read seed file ${path}: ${code ?? String(err)}`,
    );
  }
  return parseSeed(bytes, format, opts);
}
