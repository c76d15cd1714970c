/** The seed-file reader and validator for `tas-sync push FILE`. */

export { editDistance } from "../text/suggest.js";
export { SeedFormatError } from "./errors.js";
export { formatFromPath, formatProblem, formatWarning, safe } from "./format.js";
export { checkSeed, parseSeed, type SeedCheck, validRows } from "./parse.js";
export { readSeedFile } from "./read.js";
export type {
  SeedFormat,
  SeedOptions,
  SeedParseResult,
  SeedProblem,
  SeedRow,
  SeedWarning,
} from "./types.js";
export { KNOWN_FIELDS, suggestField } from "./unknown.js";
