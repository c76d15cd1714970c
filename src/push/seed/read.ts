import { readFile } from "node:fs/promises";
import { formatFromPath } from "./format.js";
import { parseSeed } from "./parse.js";
import type { SeedOptions, SeedParseResult } from "./types.js";

/** Reads a seed file from disk; the format comes from its extension. */
export async function readSeedFile(path: string, opts: SeedOptions): Promise<SeedParseResult> {
  const format = formatFromPath(path); // before reading: a wrong extension fails fast
  return parseSeed(await readFile(path), format, opts);
}
