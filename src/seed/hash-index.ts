/**
 * Identity of keys and names without holding the strings: a 64-bit hash (two 32-bit halves
 * computed with different mixes) in typed arrays, and an open-addressing index from a hash to
 * the first row that had it. Two different keys share a hash with a probability of about
 * n²/2⁶⁵: 3·10⁻⁸ for a million keys.
 */

/** The two 32-bit halves of a string's hash, written to `out[0]` and `out[1]`. */
export function hash64(s: string, out: Int32Array): void {
  let a = 0x811c9dc5 | 0;
  let b = 0x9747b28c | 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  out[0] = fmix(a ^ s.length);
  out[1] = fmix(b + Math.imul(s.length, 0x27d4eb2d));
}

function fmix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

const EMPTY = -1;

/** Hash -> the first row that had it; the table doubles past half full. */
export class HashIndex {
  #lo = new Int32Array(1 << 12);
  #hi = new Int32Array(1 << 12);
  #row = new Int32Array(1 << 12).fill(EMPTY);
  #count = 0;

  /** The row stored under the hash, or -1. */
  find(lo: number, hi: number): number {
    const mask = this.#row.length - 1;
    for (let at = lo & mask; ; at = (at + 1) & mask) {
      const row = this.#row[at]!;
      if (row === EMPTY) return EMPTY;
      if (this.#lo[at] === lo && this.#hi[at] === hi) return row;
    }
  }

  /** Stores `row` under the hash unless one is there; returns the row stored (the first). */
  addFirst(lo: number, hi: number, row: number): number {
    const mask = this.#row.length - 1;
    for (let at = lo & mask; ; at = (at + 1) & mask) {
      const found = this.#row[at]!;
      if (found === EMPTY) {
        this.#lo[at] = lo;
        this.#hi[at] = hi;
        this.#row[at] = row;
        if (++this.#count * 2 > this.#row.length) this.#grow();
        return row;
      }
      if (this.#lo[at] === lo && this.#hi[at] === hi) return found;
    }
  }

  #grow(): void {
    const [lo, hi, rows] = [this.#lo, this.#hi, this.#row];
    const size = rows.length * 2;
    this.#lo = new Int32Array(size);
    this.#hi = new Int32Array(size);
    this.#row = new Int32Array(size).fill(EMPTY);
    this.#count = 0;
    for (let i = 0; i < rows.length; i++) if (rows[i] !== EMPTY) this.addFirst(lo[i]!, hi[i]!, rows[i]!);
  }
}
