/** Shared helpers of the pull pipeline: hashing and one-line reasons for bad records. */
import { createHash } from "node:crypto";

/** SHA-256 (hex) of a record's JSON as received (its UTF-8 bytes; a string is encoded so). */
export function contentHash(json: string | Buffer): string {
  return createHash("sha256").update(json).digest("hex");
}

// Moved to normalize/ (pure record reading); re-exported until sync/ imports them from there.
export { describeIssues, idOf, type ParsedJson, parseJson } from "../normalize/record.js";
