/**
 * Row values in bytes, for the plan rows of the decided operations' file (./rows-codec.ts): a tag
 * byte, then the value. Against JSON (one JSON.stringify per plan on the worker thread, one
 * JSON.parse and an array per row on the thread that holds the write lock), about half the work
 * on either side: a number is four or eight bytes as they are, a short ASCII string its bytes,
 * and no array is made for a row (100,000 plans, a million rows, in a scratch measurement:
 * encoding 475-490 against 820-1,100 ms, decoding 175-200 against 400-450 ms).
 *
 * Every value comes back as it went, or as JSON would give it back (undefined: null; an object
 * or array: through JSON, so the numbers inside it as JSON gives them). A number that is the
 * value itself keeps -0, NaN and the infinities (JSON would make them 0 or null); a string with
 * a lone surrogate keeps it, as JSON's escapes did (here as UTF-16: UTF-8 has no bytes for it).
 */

const NULL = 0;
const FALSE = 1;
const TRUE = 2;
const INT32 = 3;
const FLOAT64 = 4;
/** u32 byte length, then UTF-8. */
const UTF8 = 5;
/** u8 length, then one byte per character (all below 0x80). */
const ASCII = 6;
/** u32 byte length, then UTF-16LE: a string that is not well-formed Unicode. */
const UTF16 = 7;
/** u32 byte length, then the value's JSON in UTF-8 (an object or array). */
const JSON_VALUE = 8;

/**
 * Strings up to this length are tried as ASCII, byte by byte (a native call costs more). The
 * ASCII tag says the length in one byte: at most 255 (a test encodes 255 and 256 characters).
 */
const SHORT = 64;
/** Past this, the writer's buffer goes back to its first size when the next plan starts (`restart`). */
const KEEP_BYTES = 1024 * 1024;
const FIRST_BYTES = 64 * 1024;

/** A growing buffer of encoded values. */
export class ValueWriter {
  buf = Buffer.allocUnsafe(FIRST_BYTES);
  at = 0;
  #view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);

  /** Starts again at 0, with the first buffer's size again if a long value grew it past KEEP_BYTES. */
  restart(): void {
    this.at = 0;
    if (this.buf.length <= KEEP_BYTES) return;
    this.buf = Buffer.allocUnsafe(FIRST_BYTES);
    this.#view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Room for `n` more bytes. */
  need(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
    this.#view = new DataView(next.buffer, next.byteOffset, next.length);
  }

  u16(n: number): void {
    this.need(2);
    this.#view.setUint16(this.at, n, true);
    this.at += 2;
  }

  u32(n: number): void {
    this.need(4);
    this.#view.setUint32(this.at, n, true);
    this.at += 4;
  }

  value(v: unknown): void {
    if (v === null || v === undefined) {
      this.need(1);
      this.buf[this.at++] = NULL;
    } else if (typeof v === "number") {
      if ((v | 0) === v && !Object.is(v, -0)) {
        this.need(5);
        this.buf[this.at] = INT32;
        this.#view.setInt32(this.at + 1, v, true);
        this.at += 5;
      } else {
        this.need(9);
        this.buf[this.at] = FLOAT64;
        this.#view.setFloat64(this.at + 1, v, true);
        this.at += 9;
      }
    } else if (typeof v === "string") this.#string(v);
    else if (typeof v === "boolean") {
      this.need(1);
      this.buf[this.at++] = v ? TRUE : FALSE;
    } else {
      const json = JSON.stringify(v) as string | undefined;
      if (json === undefined) this.value(null);
      else this.#long(JSON_VALUE, json, "utf8");
    }
  }

  #string(s: string): void {
    const n = s.length;
    if (n <= SHORT) {
      this.need(2 + n);
      const buf = this.buf;
      const start = this.at + 2;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      if (i === n) {
        buf[this.at] = ASCII;
        buf[this.at + 1] = n;
        this.at = start + n;
        return;
      }
    }
    if (s.isWellFormed()) this.#long(UTF8, s, "utf8");
    else this.#long(UTF16, s, "utf16le");
  }

  #long(tag: number, s: string, encoding: "utf8" | "utf16le"): void {
    this.need(5 + s.length * 3);
    const len = this.buf.write(s, this.at + 5, encoding);
    this.buf[this.at] = tag;
    this.#view.setUint32(this.at + 1, len, true);
    this.at += 5 + len;
  }
}

/** Reads values from a buffer, from `at` on, up to `end`. */
export class ValueReader {
  buf: Buffer = Buffer.alloc(0);
  at = 0;
  /** Where the values read begin (errors count from there) and end. */
  start = 0;
  end = 0;
  #view = new DataView(this.buf.buffer);

  /** Reads from `buf` between `at` and `end` (the view made again only for another buffer). */
  reset(buf: Buffer, at: number, end: number): void {
    if (buf !== this.buf) {
      this.buf = buf;
      this.#view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    }
    if (!(at <= end && end <= buf.length))
      throw new Error(`plan rows from byte ${at} to ${end}: past the end of a buffer of ${buf.length} bytes`);
    this.at = at;
    this.start = at;
    this.end = end;
  }

  /** An error at `at`, counted from where the values begin. */
  problem(what: string, at = this.at): Error {
    return new Error(`${what} at byte ${at - this.start} of plan rows of ${this.end - this.start} bytes`);
  }

  /** `n` more bytes from `at` are the rows' own (not the frame's text or the next frame). */
  #within(n: number, what: string, at = this.at): void {
    if (at + n > this.end) throw this.problem(`${what} past the rows' end`, at);
  }

  u16(what: string): number {
    this.#within(2, what);
    const n = this.#view.getUint16(this.at, true);
    this.at += 2;
    return n;
  }

  u32(what: string): number {
    this.#within(4, what);
    const n = this.#view.getUint32(this.at, true);
    this.at += 4;
    return n;
  }

  value(): unknown {
    const at = this.at;
    this.#within(1, "a value");
    const tag = this.buf[at];
    switch (tag) {
      case NULL:
        this.at = at + 1;
        return null;
      case FALSE:
        this.at = at + 1;
        return false;
      case TRUE:
        this.at = at + 1;
        return true;
      case INT32:
        this.#within(5, "a number", at);
        this.at = at + 5;
        return this.#view.getInt32(at + 1, true);
      case FLOAT64:
        this.#within(9, "a number", at);
        this.at = at + 9;
        return this.#view.getFloat64(at + 1, true);
      case ASCII: {
        this.#within(2, "a string", at);
        const end = at + 2 + (this.buf[at + 1] as number);
        this.#within(end - at, "a string", at);
        this.at = end;
        return this.buf.toString("latin1", at + 2, end);
      }
      case UTF8:
      case UTF16:
      case JSON_VALUE: {
        this.#within(5, "a string", at);
        const end = at + 5 + this.#view.getUint32(at + 1, true);
        this.#within(end - at, "a string", at);
        this.at = end;
        const s = this.buf.toString(tag === UTF16 ? "utf16le" : "utf8", at + 5, end);
        return tag === JSON_VALUE ? JSON.parse(s) : s;
      }
      default:
        throw this.problem(`an unknown value tag ${String(tag)}`, at);
    }
  }
}
