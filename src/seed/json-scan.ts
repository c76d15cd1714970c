/**
 * Splits the text of a top-level JSON array into its elements' source slices, with the
 * line each starts on. JSON.parse gives no positions, so this is how rows get line numbers.
 * Only the array's structure is checked here; each slice is validated by JSON.parse later,
 * and the two together accept exactly the valid JSON arrays.
 */

export interface JsonElement {
  text: string;
  line: number;
  endLine: number;
}

export type ScanResult = { elements: JsonElement[] } | { line: number; reason: string };

const LF = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

export function scanJsonArray(text: string): ScanResult {
  const n = text.length;
  let pos = 0;
  let line = 1;
  const skipSpace = () => {
    for (
      let c = text.charCodeAt(pos);
      c === 32 || c === 9 || c === 13 || c === LF;
      c = text.charCodeAt(++pos)
    ) {
      if (c === LF) line++;
    }
  };

  skipSpace();
  if (pos >= n) return { elements: [] }; // an empty file holds no rows
  if (text[pos] !== "[")
    return { line, reason: `expected a JSON array of scenario objects, found ${quote(text, pos)}` };
  pos++;
  skipSpace();
  const elements: JsonElement[] = [];
  if (text[pos] === "]") pos++;
  else {
    for (;;) {
      skipSpace();
      const start = pos;
      const startLine = line;
      let depth = 0;
      for (; pos < n; pos++) {
        const c = text.charCodeAt(pos);
        if (c === QUOTE) {
          for (pos++; pos < n; pos++) {
            const s = text.charCodeAt(pos);
            if (s === BACKSLASH) pos++;
            else if (s === QUOTE) break;
            else if (s === LF) line++; // invalid in JSON, but keeps the error's line right
          }
        } else if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) {
          if (depth === 0) break;
          depth--;
        } else if (c === COMMA && depth === 0) break;
        else if (c === LF) line++;
      }
      const slice = text.slice(start, pos);
      if (slice.trim() === "")
        return { line, reason: `expected an array element, found ${quote(text, pos)}` };
      elements.push({ text: slice, line: startLine, endLine: line });
      if (pos >= n) return { line, reason: "unexpected end of file: the array is not closed" };
      const c = text[pos++];
      if (c === "]") break;
      if (c !== ",") return { line, reason: `unexpected '${c}' in the array` };
    }
  }
  skipSpace();
  if (pos < n) return { line, reason: `unexpected ${quote(text, pos)} after the end of the array` };
  return { elements };
}

function quote(text: string, pos: number): string {
  return pos >= text.length ? "end of file" : JSON.stringify(text.slice(pos, pos + 10));
}
