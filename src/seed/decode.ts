/**
 * Bytes to text. The whole buffer is decoded once (the fast path); only when that fails
 * are lines decoded one by one, so that one bad line is one problem and the rest still parse.
 */

export interface DecodedText {
  text: string;
  /** 1-based physical lines that are not valid UTF-8; null when the whole file is. */
  badLines: ReadonlySet<number> | null;
}

export const BAD_ENCODING = "unreadable encoding: not valid UTF-8";

// ignoreBOM: the BOM is stripped by hand below, so that line 1 is the same in both paths.
const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const LF = 0x0a;

export function decodeSeed(input: Uint8Array): DecodedText {
  const bytes = hasBom(input) ? input.subarray(3) : input;
  try {
    return { text: fatal.decode(bytes), badLines: null };
  } catch {
    // A replacement character never swallows an ASCII byte, so the lenient text keeps
    // every newline, quote and comma where it was: lines and records still line up.
    return { text: lenient.decode(bytes), badLines: findBadLines(bytes) };
  }
}

function hasBom(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
}

function findBadLines(bytes: Uint8Array): Set<number> {
  const bad = new Set<number>();
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = bytes.length;
    try {
      fatal.decode(bytes.subarray(start, end));
    } catch {
      bad.add(line);
    }
    start = end + 1;
  }
  return bad;
}

/** Whether any physical line in from..to (inclusive) is not valid UTF-8. */
export function spansBadLine(d: DecodedText, from: number, to: number): boolean {
  if (d.badLines === null) return false;
  for (let line = from; line <= to; line++) if (d.badLines.has(line)) return true;
  return false;
}
