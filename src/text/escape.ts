/**
 * Text from outside (the service, a seed file) shown on a terminal: every character that could
 * move the cursor, start an escape sequence, reorder the line or split it is replaced by a
 * visible escape, so a value can never drive the terminal. Pure; no dependencies.
 */

const NAMED: Record<number, string> = { 9: "\\t", 10: "\\n", 13: "\\r" };

/** C0, DEL, C1, bidirectional controls, line/paragraph separators and lone surrogates. */
function isUnsafe(c: number): boolean {
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  if (c < 0x61c) return false; // fast exit for Latin, Greek, Cyrillic...
  return (
    c === 0x61c || // Arabic letter mark
    c === 0x200e ||
    c === 0x200f ||
    (c >= 0x2028 && c <= 0x202e) || // separators and embeddings/overrides
    (c >= 0x2066 && c <= 0x2069) // isolates
  );
}

function escapeCode(c: number): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const hex = c.toString(16);
  return c <= 0xff ? `\\x${hex.padStart(2, "0")}` : `\\u{${hex}}`;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * `s` with control characters escaped: ESC as `\x1b`, newline `\n`, tab `\t`, CR `\r`, other C0,
 * DEL and C1 as `\xNN`, bidi controls, U+2028/U+2029 and lone surrogates as `\u{...}`.
 * With `replacement`, U+FFFD (what invalid UTF-8 decodes to) is escaped as `\u{fffd}` too.
 */
export function escapeControls(s: string, opts: { replacement?: boolean } = {}): string {
  const n = s.length;
  let i = 0;
  // Fast path: most values have nothing to escape, and are returned as they are.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isUnsafe(c) || (c >= 0xd800 && c <= 0xdfff) || (c === 0xfffd && opts.replacement)) break;
  }
  if (i === n) return s;
  let out = s.slice(0, i);
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isHigh(c) && isLow(s.charCodeAt(i + 1))) {
      out += s[i]! + s[i + 1]!; // a well-formed pair: an astral character such as an emoji
      i++;
    } else if (isUnsafe(c) || isHigh(c) || isLow(c) || (c === 0xfffd && opts.replacement)) {
      out += escapeCode(c);
    } else out += s[i];
  }
  return out;
}
