/**
 * Splits a JSON array arriving in chunks into the bytes of each top-level element, so a
 * list of 100,000 plans is never held in memory whole (nor decoded before it is needed). It only finds boundaries (depth,
 * strings, escapes); each element is parsed by its consumer. Pure: no I/O.
 */
import { formatBytes } from "./bytes.js";

export class JsonArrayFormatError extends Error {
  override name = "JsonArrayFormatError";
}

/** The largest single element (one plan) accepted: a larger one is refused, not buffered. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** One element grew past the limit before it ended. */
export class JsonElementTooLargeError extends JsonArrayFormatError {
  override name = "JsonElementTooLargeError";
  constructor(readonly limit: number) {
    super(`an element is larger than ${formatBytes(limit)}`);
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export class JsonArraySplitter {
  /** Bytes of the open element from earlier chunks; joined once, when it ends (no re-copying). */
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** 0: before '[', 1: between elements, 2: after ']'. */
  #state = 0;
  /** Depth inside the current element; the element ends when it returns to 0. */
  #depth = 0;
  #inString = false;
  #open = false;
  /** Backslashes ending the data so far, inside a string: they decide a quote at the next chunk's start. */
  #backslashRun = 0;
  #count = 0;
  readonly #maxElementBytes: number;

  constructor(opts: { maxElementBytes?: number } = {}) {
    this.#maxElementBytes = opts.maxElementBytes ?? MAX_RECORD_BYTES;
  }

  get count(): number {
    return this.#count;
  }

  /** Feed a chunk; `emit` gets each complete element's UTF-8 JSON bytes, in order. */
  push(chunk: Buffer, emit: (bytes: Buffer) => void): void {
    const n = chunk.length;
    // The scan keeps its state in locals (written back at the end): it runs once per byte.
    let open = this.#open;
    let depth = this.#depth;
    let inString = this.#inString;
    let state = this.#state;
    // Where the open element starts in this chunk (0: it began in an earlier one).
    let start = open ? 0 : -1;
    let i = 0;
    try {
      while (i < n) {
        if (inString) {
          const q = chunk.indexOf(QUOTE, i);
          if (q < 0) {
            this.#noteBackslashes(chunk, i);
            i = n;
            break;
          }
          // The byte before i is the opening or an escaped quote, or i is 0 and the run may go
          // on from the previous chunk.
          let k = q - 1;
          while (k >= i && chunk[k] === BACKSLASH) k--;
          const bs = q - 1 - k + (k < 0 ? this.#backslashRun : 0);
          i = q + 1;
          this.#backslashRun = 0; // the data now ends with a quote
          if (bs % 2 === 0) inString = false;
          continue;
        }
        const b = chunk[i] as number;
        if (open) {
          // Checked first: the ']' closing the array after a scalar ("[1,2]", '["a"]') must
          // end the scalar, not count as a nested close.
          if (depth === 0 && (b === COMMA || b === CLOSE_BRACKET || isSpace(b))) {
            // The end of a scalar element (number, string, true, null...). Whitespace ends a
            // scalar, so the slice has none at its end.
            this.#finish(chunk, start, i, emit);
            open = false;
            continue; // let the separator be handled below
          }
          if (b === QUOTE) {
            inString = true;
            this.#backslashRun = 0;
          } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
          else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
            depth--;
            if (depth === 0) {
              this.#finish(chunk, start, i + 1, emit);
              open = false;
            }
          }
          i++;
          continue;
        }
        if (isSpace(b)) {
          i++;
          continue;
        }
        if (state === 0) {
          if (b !== OPEN_BRACKET)
            throw new JsonArrayFormatError(`expected a JSON array, found '${String.fromCharCode(b)}'`);
          state = 1;
        } else if (state === 1) {
          if (b === CLOSE_BRACKET) state = 2;
          else if (b !== COMMA) {
            open = true;
            start = i;
            depth = b === OPEN_BRACE || b === OPEN_BRACKET ? 1 : 0;
            if (b === QUOTE) {
              inString = true;
              this.#backslashRun = 0;
            }
          }
        } else {
          throw new JsonArrayFormatError("unexpected data after the end of the JSON array");
        }
        i++;
      }
    } finally {
      this.#open = open;
      this.#depth = depth;
      this.#inString = inString;
      this.#state = state;
    }
    if (!open) return;
    const rest = chunk.subarray(start);
    this.#parts.push(rest);
    this.#partsBytes += rest.length;
    // Checked per chunk: the element held may pass the limit by one chunk at most.
    if (this.#partsBytes > this.#maxElementBytes) throw new JsonElementTooLargeError(this.#maxElementBytes);
  }

  /** An element ends at `end` (exclusive) in this chunk: emitted, with its earlier parts. */
  #finish(chunk: Buffer, start: number, end: number, emit: (bytes: Buffer) => void): void {
    const tail = chunk.subarray(start, end);
    const parts = this.#parts;
    this.#parts = [];
    this.#partsBytes = 0;
    this.#open = false;
    this.#count++;
    emit(parts.length ? Buffer.concat([...parts, tail]) : tail);
  }

  /** Inside a string with no quote in chunk[from..]: remember the backslashes it ends with. */
  #noteBackslashes(chunk: Buffer, from: number): void {
    let k = chunk.length - 1;
    while (k >= from && chunk[k] === BACKSLASH) k--;
    const run = chunk.length - 1 - k;
    // All backslashes from the chunk's start: the run continues the previous chunk's.
    this.#backslashRun = k < 0 ? this.#backslashRun + run : run;
  }

  /** The bytes of an element begun but not ended (the input broke off inside it), or null. */
  pending(): Buffer | null {
    return this.#open && this.#partsBytes > 0 ? Buffer.concat(this.#parts, this.#partsBytes) : null;
  }

  /** Call at end of input: throws when the array was not closed. */
  end(): void {
    if (this.#state !== 2) throw new JsonArrayFormatError("the JSON array ended early (truncated response)");
  }
}
