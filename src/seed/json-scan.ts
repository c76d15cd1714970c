/**
 * Splits the text of a top-level JSON array into its elements' source slices, with the
 * line each starts on, a part of the file at a time. JSON.parse gives no positions, so this is
 * how rows get line numbers. Only the array's structure is checked here; each slice is
 * validated by JSON.parse later, and the two together accept exactly the valid JSON arrays.
 */

export interface JsonElement {
  text: string;
  line: number;
  endLine: number;
}

export interface ScanProblem {
  line: number;
  reason: string;
}

const LF = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

/** Where the scanner is: before "[", before an element, inside one, after one, after "]". */
type Phase = "start" | "first" | "before" | "inside" | "after" | "end";

export class JsonArrayScanner {
  #text = "";
  #pos = 0;
  #line = 1;
  #phase: Phase = "start";
  #start = 0;
  #startLine = 1;
  #depth = 0;
  #inString = false;
  #escaped = false;

  /**
   * Scans the next part of the file (`final`: its last), yielding the elements it finds one at
   * a time; returns a problem that ends the scan, or null. Unless `final`, an element still open at the
   * end of the text is kept for the next call.
   */
  *feed(text: string, final: boolean): Generator<JsonElement, ScanProblem | null> {
    // Keep only the open element (or nothing) of what came before.
    const keep = this.#phase === "inside" ? this.#start : this.#pos;
    this.#text = this.#text.slice(keep) + text;
    this.#pos -= keep;
    this.#start -= keep;
    const t = this.#text;
    const n = t.length;
    for (;;) {
      switch (this.#phase) {
        case "start": {
          this.#skipSpace();
          if (this.#pos >= n) return null; // an empty file holds no rows (or more text comes)
          if (t[this.#pos] !== "[") {
            if (this.#cut(final)) return null;
            return this.#problem(`expected a JSON array of scenario objects, found ${quote(t, this.#pos)}`);
          }
          this.#pos++;
          this.#phase = "first";
          break;
        }
        case "first": {
          this.#skipSpace();
          if (this.#pos >= n)
            return final ? this.#problem(`expected an array element, found end of file`) : null;
          if (t[this.#pos] === "]") {
            this.#pos++;
            this.#phase = "end";
          } else this.#phase = "before";
          break;
        }
        case "before": {
          this.#skipSpace();
          if (this.#pos >= n && !final) return null;
          this.#start = this.#pos;
          this.#startLine = this.#line;
          this.#depth = 0;
          this.#inString = false;
          this.#phase = "inside";
          break;
        }
        case "inside": {
          if (!this.#scanElement(n)) {
            if (!final) return null;
          }
          const slice = t.slice(this.#start, this.#pos);
          if (slice.trim() === "") {
            if (this.#cut(final)) return null;
            return this.#problem(`expected an array element, found ${quote(t, this.#pos)}`);
          }
          this.#phase = "after";
          yield { text: slice, line: this.#startLine, endLine: this.#line };
          break;
        }
        case "after": {
          if (this.#pos >= n) return this.#problem("unexpected end of file: the array is not closed");
          const c = t[this.#pos++];
          if (c === "]") this.#phase = "end";
          else if (c === ",") this.#phase = "before";
          else return this.#problem(`unexpected '${c}' in the array`);
          break;
        }
        case "end": {
          this.#skipSpace();
          if (this.#pos < n) {
            if (this.#cut(final)) return null;
            return this.#problem(`unexpected ${quote(t, this.#pos)} after the end of the array`);
          }
          return null;
        }
      }
    }
  }

  /** Scans to the element's end (a comma or bracket at depth 0); false when the text ran out first. */
  #scanElement(n: number): boolean {
    const t = this.#text;
    let pos = this.#pos;
    if (this.#escaped && pos < n) {
      pos++; // the character a backslash at the end of the last part escaped
      this.#escaped = false;
    }
    let done = false;
    for (; pos < n; pos++) {
      const c = t.charCodeAt(pos);
      if (this.#inString) {
        if (c === BACKSLASH) {
          if (pos + 1 === n) this.#escaped = true;
          pos++;
        } else if (c === QUOTE) this.#inString = false;
        else if (c === LF) this.#line++; // invalid in JSON, but keeps the error's line right
      } else if (c === QUOTE) this.#inString = true;
      else if (c === 123 || c === 91) this.#depth++;
      else if (c === 125 || c === 93) {
        if (this.#depth === 0) {
          done = true;
          break;
        }
        this.#depth--;
      } else if (c === COMMA && this.#depth === 0) {
        done = true;
        break;
      } else if (c === LF) this.#line++;
    }
    // Past n only after a backslash at the very end (#escaped says so).
    this.#pos = Math.min(pos, n);
    return done;
  }

  /**
   * Whether a problem's excerpt would be cut short by the end of this part: then the scanner
   * waits for the next part (its state unchanged) and says the same with the whole excerpt.
   */
  #cut(final: boolean): boolean {
    return !final && this.#pos + EXCERPT > this.#text.length;
  }

  #skipSpace(): void {
    const t = this.#text;
    for (
      let c = t.charCodeAt(this.#pos);
      c === 32 || c === 9 || c === 13 || c === LF;
      c = t.charCodeAt(++this.#pos)
    ) {
      if (c === LF) this.#line++;
    }
  }

  #problem(reason: string): ScanProblem {
    return { line: this.#line, reason };
  }
}

/** Characters of the file a problem quotes. */
const EXCERPT = 10;

function quote(text: string, pos: number): string {
  return pos >= text.length ? "end of file" : JSON.stringify(text.slice(pos, pos + EXCERPT));
}
