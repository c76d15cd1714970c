import { hash } from "node:crypto";

/** SHA-256 (hex) of a record as received (its UTF-8 bytes): the content_hash column. */
export function contentHash(bytes: Uint8Array | string): string {
  return hash("sha256", bytes, "hex");
}
