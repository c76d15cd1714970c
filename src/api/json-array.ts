/**
 * Splits a JSON array arriving in chunks into the bytes of each top-level element, so a
 * list of 100,000 plans is never held in memory whole (nor decoded before it is needed). It only finds boundaries (depth,
 * strings, escapes); each element is parsed by its consumer. Pure: no I/O.
 */
export class JsonArrayFormatError extends Error {
  override name = "JsonArrayFormatError";
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
  #pending: Buffer = Buffer.alloc(0);
  /** 0: before '[', 1: between elements, 2: after ']'. */
  #state = 0;
  /** Depth inside the current element; the element ends when it returns to 0. */
  #depth = 0;
  #inString = false;
  #elementStart = -1;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** Feed a chunk; `emit` gets each complete element's UTF-8 JSON bytes, in order. */
  push(chunk: Buffer, emit: (bytes: Buffer) => void): void {
    const buf = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    // An open element was already scanned up to the end of the previous chunk.
    let i = this.#elementStart >= 0 ? this.#pending.length : 0;
    const n = buf.length;
    while (i < n) {
      if (this.#inString) {
        const q = buf.indexOf(QUOTE, i);
        if (q < 0) {
          i = n;
          break;
        }
        let bs = 0;
        for (let k = q - 1; k >= 0 && buf[k] === BACKSLASH; k--) bs++;
        i = q + 1;
        if (bs % 2 === 0) this.#inString = false;
        continue;
      }
      const b = buf[i] as number;
      if (this.#elementStart >= 0) {
        // Checked first: the ']' closing the array after a scalar ("[1,2]", '["a"]') must
        // end the scalar, not count as a nested close.
        if (this.#depth === 0 && (b === COMMA || b === CLOSE_BRACKET || isSpace(b))) {
          // end of a scalar element (number, string, true, null...)
          // Whitespace ends a scalar, so the slice has none at its end.
          emit(buf.subarray(this.#elementStart, i));
          this.#count++;
          this.#elementStart = -1;
          continue; // let the separator be handled below
        }
        if (b === QUOTE) this.#inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.#depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          this.#depth--;
          if (this.#depth === 0) {
            emit(buf.subarray(this.#elementStart, i + 1));
            this.#count++;
            this.#elementStart = -1;
          }
        }
        i++;
        continue;
      }
      if (isSpace(b)) {
        i++;
        continue;
      }
      if (this.#state === 0) {
        if (b !== OPEN_BRACKET)
          throw new JsonArrayFormatError(`expected a JSON array, found '${String.fromCharCode(b)}'`);
        this.#state = 1;
      } else if (this.#state === 1) {
        if (b === CLOSE_BRACKET) this.#state = 2;
        else if (b !== COMMA) {
          this.#elementStart = i;
          if (b === OPEN_BRACE || b === OPEN_BRACKET) this.#depth = 1;
          else if (b === QUOTE) {
            this.#depth = 0;
            this.#inString = true;
          } else this.#depth = 0;
        }
      } else {
        throw new JsonArrayFormatError("unexpected data after the end of the JSON array");
      }
      i++;
    }
    this.#pending = this.#elementStart >= 0 ? buf.subarray(this.#elementStart) : Buffer.alloc(0);
    if (this.#elementStart >= 0) this.#elementStart = 0;
  }

  /** Call at end of input: throws when the array was not closed. */
  end(): void {
    if (this.#state !== 2) throw new JsonArrayFormatError("the JSON array ended early (truncated response)");
  }
}
