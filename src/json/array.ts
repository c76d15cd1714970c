/**
 * The one scanner of a top-level JSON array arriving as byte chunks: it finds where each element
 * starts and ends (depth, strings, escapes), so that a list of 100,000 plans or a seed file of a
 * million rows is never held whole. Each element's bytes are parsed by their consumer. Lines are
 * counted only when asked. Pure: no I/O.
 *
 * Two rules, one scan. By default (the plan list) separators are read leniently: a stray or
 * missing comma costs at most the record it touches, never the list, and an element is handed on
 * as soon as it ends (an object at its '}'). Strict (a seed file) refuses any structural problem
 * and gives each element as written up to its separator.
 */
import { formatBytes } from "../text/bytes.js";

/** What is wrong with the array, where `offset` (bytes from the start of the input) points. */
export type ArrayProblem = "not-array" | "no-element" | "unexpected" | "after-end" | "ended" | "too-large";

const MESSAGES: Record<ArrayProblem, (found: string) => string> = {
  "not-array": (c) => `expected a JSON array, found '${c}'`,
  "no-element": (c) => `expected an array element, found '${c}'`,
  unexpected: (c) => `unexpected '${c}' in the array`,
  "after-end": () => "unexpected data after the end of the JSON array",
  ended: () => "the JSON array ended early (truncated response)",
  "too-large": () => "an element is too large",
};

export class JsonArrayFormatError extends Error {
  override name = "JsonArrayFormatError";
  constructor(
    readonly problem: ArrayProblem,
    /** Where the problem is: bytes from the start, and its line (0 unless lines are counted). */
    readonly offset: number,
    readonly line: number,
    found = -1,
    message = MESSAGES[problem](String.fromCharCode(found)),
  ) {
    super(message);
  }
}

/** The largest single element (one plan) accepted: a larger one is refused, not buffered. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** One element grew past the limit before it ended. */
export class JsonElementTooLargeError extends JsonArrayFormatError {
  override name = "JsonElementTooLargeError";
  constructor(readonly limit: number) {
    super("too-large", 0, 0, -1, `an element is larger than ${formatBytes(limit)}`);
  }
}

/** An element's bytes, the lines it starts and ends on (0 unless counted), and the offset of its end. */
export type ElementSink = (bytes: Buffer, line: number, endLine: number, end: number) => void;

export interface ScannerOptions {
  maxElementBytes?: number; // default MAX_RECORD_BYTES
  /** Count lines (LF) for the elements and problems; off, the scan costs nothing more. */
  lines?: boolean;
  /**
   * Refuse a missing, doubled or trailing ',' and a stray '}' or ']'; give each element as written
   * up to its separator, white space after it included (what a reader quoting JSON.parse's
   * positions needs). By default: empty places are skipped, an element ends where its value
   * does (at its last '}' or ']', or a scalar at white space), and elements not parted by a
   * comma are still split.
   */
  strict?: boolean;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const LF = 0x0a;
/** Bytes of a string scanned one by one before a native search takes over. */
const NEAR = 32;
/** 1 for the bytes that do not matter inside brackets, outside strings: all but '"' '{' '}' '[' ']'. */
const INERT = new Uint8Array(256).fill(1);
for (const b of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET]) INERT[b] = 0;

function isSpace(b: number): boolean {
  return b === 0x20 || b === LF || b === 0x0d || b === 0x09;
}

/** Before '[', after '[' or between elements, after ',' (strict: an element must come), after ']'. */
const BEFORE = 0;
const FIRST = 1;
const NEXT = 2;
const AFTER = 3;

export class JsonArrayScanner {
  /** Bytes of the open element from earlier chunks; joined once, when it ends (no re-copying). */
  #parts: Buffer[] = [];
  #partsBytes = 0;
  #state = BEFORE;
  /** An element is open; `depth` counts its open brackets (by default, a stray '}' makes it negative). */
  #open = false;
  #depth = 0;
  #inString = false;
  /** Backslashes ending the data so far, inside a string: they decide a quote at the next chunk's start. */
  #backslashRun = 0;
  #count = 0;
  /** Bytes of the chunks before the current one. */
  #base = 0;
  /** The line counted so far, and the next LF of the current chunk not yet counted (-1: none). */
  #line = 1;
  #nextLf = -1;
  #startLine = 1;
  readonly #lines: boolean;
  readonly #strict: boolean;
  readonly #maxElementBytes: number;

  constructor(opts: ScannerOptions = {}) {
    this.#maxElementBytes = opts.maxElementBytes ?? MAX_RECORD_BYTES;
    this.#lines = opts.lines === true;
    this.#strict = opts.strict === true;
  }

  /** Elements emitted so far. */
  get count(): number {
    return this.#count;
  }

  /** Where the input so far ends: between elements (or before the first), inside one, or after the array. */
  get phase(): "before" | "between" | "inside" | "after" {
    if (this.#open) return "inside";
    return this.#state === BEFORE ? "before" : this.#state === AFTER ? "after" : "between";
  }

  /** The line the input so far ends on (with `lines`). */
  get line(): number {
    return this.#line;
  }

  /**
   * Feed a chunk; `emit` gets each complete element, in order. Throws JsonArrayFormatError at the
   * first problem, after emitting the elements before it.
   */
  push(chunk: Buffer, emit: ElementSink): void {
    const n = chunk.length;
    if (this.#lines) this.#nextLf = chunk.indexOf(LF);
    // The scan keeps its state in locals (written back at the end): it runs once per byte.
    let open = this.#open;
    let depth = this.#depth;
    let inString = this.#inString;
    let state = this.#state;
    const strict = this.#strict;
    // Where the open element starts in this chunk (0: it began in an earlier one).
    let start = 0;
    let i = 0;
    try {
      while (i < n) {
        if (inString) {
          // Most strings (keys, short values) end within a few bytes: found here, for less than
          // a native call costs; a long one is left to indexOf.
          let q = i;
          const near = Math.min(n, i + NEAR);
          while (q < near && chunk[q] !== QUOTE) q++;
          if (q === near) q = near < n ? chunk.indexOf(QUOTE, near) : -1;
          if (q < 0) {
            this.#backslashRun = this.#backslashesBefore(chunk, i, n);
            i = n;
            break;
          }
          const bs = this.#backslashesBefore(chunk, i, q);
          i = q + 1;
          this.#backslashRun = 0; // the data now ends with a quote
          if (bs % 2 === 0) inString = false;
          continue;
        }
        let b = chunk[i] as number;
        if (open && depth !== 0) {
          // Inside brackets only a quote or a bracket matters: the rest is passed in a tight loop.
          while (INERT[b] === 1 && ++i < n) b = chunk[i] as number;
          if (i === n) break;
        }
        // '[' and '{' differ only in bit 0x20, as do ']' and '}': one compare for each pair.
        const pair = b | 0x20;
        if (open) {
          if (b === QUOTE) {
            inString = true;
            this.#backslashRun = 0;
          } else if (pair === OPEN_BRACE) depth++;
          else if (depth !== 0) {
            // A closing bracket. By default the element ends with its value: at the one that closes it.
            if (--depth === 0 && !strict) {
              open = false;
              this.#finish(chunk, start, i + 1, emit);
            }
          } else if (strict) {
            if (pair === CLOSE_BRACE || b === COMMA) {
              open = false;
              this.#finish(chunk, start, i, emit);
              if (b === COMMA) state = NEXT;
              else if (b === CLOSE_BRACKET) state = AFTER;
              else throw this.#problem("unexpected", chunk, i);
            }
          } else if (b === COMMA || b === CLOSE_BRACKET || isSpace(b)) {
            // The end of a scalar (number, string, true, null...); the separator is read again below.
            open = false;
            this.#finish(chunk, start, i, emit);
            continue;
          } else if (b === CLOSE_BRACE) depth = -1; // kept in the scalar, as any close is by default
          i++;
          continue;
        }
        if (isSpace(b)) {
          i++;
          continue;
        }
        if (state === BEFORE) {
          if (b !== OPEN_BRACKET) throw this.#problem("not-array", chunk, i);
          state = FIRST;
        } else if (state === AFTER) {
          throw this.#problem("after-end", chunk, i);
        } else if (b === CLOSE_BRACKET && (state === FIRST || !strict)) {
          state = AFTER;
        } else if (b === COMMA && !strict) {
          // An empty place: skipped.
        } else if (strict && (b === COMMA || pair === CLOSE_BRACE)) {
          throw this.#problem("no-element", chunk, i);
        } else {
          // An element starts: its first byte is scanned again as part of it, but for a stray
          // '}' (by default), which is its first byte and closes nothing.
          open = true;
          start = i;
          depth = 0;
          if (this.#lines) this.#startLine = this.#lineAt(chunk, i);
          if (b === CLOSE_BRACE) i++;
          continue;
        }
        i++;
      }
    } finally {
      this.#open = open;
      this.#depth = depth;
      this.#inString = inString;
      this.#state = state;
      if (this.#lines) this.#lineAt(chunk, n);
      this.#base += n;
    }
    if (!open) return;
    const rest = chunk.subarray(start);
    this.#parts.push(rest);
    this.#partsBytes += rest.length;
    // Checked per chunk: the element held may pass the limit by one chunk at most.
    if (this.#partsBytes > this.#maxElementBytes) throw new JsonElementTooLargeError(this.#maxElementBytes);
  }

  /** An element ends at `end` (exclusive) in this chunk: emitted, with its earlier parts. */
  #finish(chunk: Buffer, start: number, end: number, emit: ElementSink): void {
    const endLine = this.#lines ? this.#lineAt(chunk, end) : 0;
    let bytes = chunk.subarray(start, end);
    if (this.#parts.length) {
      bytes = Buffer.concat([...this.#parts, bytes]);
      this.#parts = [];
      this.#partsBytes = 0;
    }
    this.#count++;
    emit(bytes, this.#startLine, endLine, this.#base + end);
  }

  /** The line of chunk[at], counting the LFs before it (never the same one twice). */
  #lineAt(chunk: Buffer, at: number): number {
    while (this.#nextLf !== -1 && this.#nextLf < at) {
      this.#line++;
      this.#nextLf = chunk.indexOf(LF, this.#nextLf + 1);
    }
    return this.#line;
  }

  #problem(problem: ArrayProblem, chunk: Buffer, at: number): JsonArrayFormatError {
    const line = this.#lines ? this.#lineAt(chunk, at) : 0;
    return new JsonArrayFormatError(problem, this.#base + at, line, chunk[at]);
  }

  /**
   * The backslashes in a string right before chunk[end], none before `from` (the opening or an
   * escaped quote); all of them from the chunk's start: the run goes on from the previous chunk.
   */
  #backslashesBefore(chunk: Buffer, from: number, end: number): number {
    let k = end - 1;
    while (k >= from && chunk[k] === BACKSLASH) k--;
    return end - 1 - k + (k < 0 ? this.#backslashRun : 0);
  }

  /** The bytes of an element begun but not ended (the input broke off inside it), or null. */
  pending(): Buffer | null {
    return this.#open && this.#partsBytes > 0 ? Buffer.concat(this.#parts, this.#partsBytes) : null;
  }

  /** Call at end of input: throws when the array was not closed. */
  end(): void {
    if (this.#state !== AFTER || this.#open) throw new JsonArrayFormatError("ended", this.#base, this.#line);
  }
}
