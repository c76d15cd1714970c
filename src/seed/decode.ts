/**
 * Bytes to text, a chunk at a time: each piece of text ends at a line end (the last one at the
 * end of the file), so a multi-byte character is never cut and a reader always sees whole
 * lines. A piece is checked at once (the fast path); only when that fails are its lines checked
 * one by one, so that one bad line is one problem and the rest still parse. The JSON reader
 * takes the pieces as bytes.
 */

import { isUtf8 } from "node:buffer";

export const BAD_ENCODING = "unreadable encoding: not valid UTF-8";

// ignoreBOM: the BOM is stripped by hand below, so that line 1 is the same in both paths.
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const LF = 0x0a;
const EMPTY = Buffer.alloc(0);

/** Bytes as text; a sequence that is not UTF-8 becomes U+FFFD. */
export function text(bytes: Uint8Array): string {
  return bytes.length === 0 ? "" : lenient.decode(bytes);
}

export class SeedDecoder {
  /** 1-based physical lines that are not valid UTF-8 (of the pieces decoded so far). */
  readonly badLines = new Set<number>();
  #rest: Uint8Array | null = null;
  #started = false;
  /** The line the next piece starts on. */
  #line = 1;

  /**
   * The bytes of the complete lines received so far and not yet returned (a Buffer over them,
   * not a copy); the lines that are not UTF-8 are noted.
   */
  push(chunk: Uint8Array): Buffer {
    let bytes = this.#rest === null ? chunk : concat(this.#rest, chunk);
    this.#rest = null;
    if (!this.#started) {
      if (bytes.length < 3) {
        this.#rest = copy(bytes);
        return EMPTY;
      }
      this.#started = true;
      if (hasBom(bytes)) bytes = bytes.subarray(3);
    }
    const lastLf = bytes.lastIndexOf(LF);
    if (lastLf === -1) {
      this.#rest = copy(bytes);
      return EMPTY;
    }
    if (lastLf + 1 < bytes.length) this.#rest = copy(bytes.subarray(lastLf + 1));
    return this.#check(bytes.subarray(0, lastLf + 1));
  }

  /** The bytes after the last line end (the file's last line, when it has no line end). */
  end(): Buffer {
    let bytes = this.#rest ?? EMPTY;
    this.#rest = null;
    if (!this.#started && hasBom(bytes)) bytes = bytes.subarray(3);
    this.#started = true;
    return this.#check(bytes);
  }

  /** Whether any physical line in from..to (inclusive) is not valid UTF-8. */
  spansBadLine(from: number, to: number): boolean {
    if (this.badLines.size === 0) return false;
    for (let line = from; line <= to; line++) if (this.badLines.has(line)) return true;
    return false;
  }

  #check(bytes: Uint8Array): Buffer {
    const first = this.#line;
    for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) this.#line++;
    // Not valid UTF-8: the lines that are not are found, and decoded leniently. A replacement
    // character never swallows an ASCII byte, so the text keeps every newline, quote and comma
    // where it was: lines and records still line up.
    if (!isUtf8(bytes)) this.#findBadLines(bytes, first);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  #findBadLines(bytes: Uint8Array, firstLine: number): void {
    let start = 0;
    for (let line = firstLine; start < bytes.length; line++) {
      let end = bytes.indexOf(LF, start);
      if (end === -1) end = bytes.length;
      if (!isUtf8(bytes.subarray(start, end))) this.badLines.add(line);
      start = end + 1;
    }
  }
}

/** A piece of text that ends at a line end, or the file's last piece (`final`). */
export interface Piece {
  text: string;
  final: boolean;
}

/** A piece of bytes that ends at a line end, or the file's last piece (`final`). */
export interface BytePiece {
  bytes: Buffer;
  final: boolean;
}

/** pieces(), as bytes. */
export function* bytePieces(chunks: Iterable<Uint8Array>, decoder: SeedDecoder): Generator<BytePiece> {
  for (const chunk of chunks) {
    const bytes = decoder.push(chunk);
    if (bytes.length > 0) yield { bytes, final: false };
  }
  yield { bytes: decoder.end(), final: true };
}

/** The pieces of text of a file's chunks, the last one marked final (it may be ""). */
export function* pieces(chunks: Iterable<Uint8Array>, decoder: SeedDecoder): Generator<Piece> {
  for (const { bytes, final } of bytePieces(chunks, decoder)) yield { text: text(bytes), final };
}

/**
 * A copy of bytes kept for the next push: it must neither keep the whole chunk alive nor change
 * with a chunk the caller reuses (a Buffer's `slice` is a view, a Uint8Array's a copy).
 */
function copy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function hasBom(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
