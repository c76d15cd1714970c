/**
 * Terminal columns of text: CJK and emoji take two, combining marks none (string-width's
 * rules). Cutting never splits a grapheme (Intl.Segmenter), so an accent stays on its letter
 * and a flag or a family emoji is kept whole or dropped whole.
 *
 * Segmenting costs ~20 µs per short string, too slow for a million rows: text in which every
 * code point is its own grapheme (no marks, joiners, emoji, jamo, format characters) is measured
 * code point by code point instead, each one's width asked of string-width once and kept.
 */
import stringWidth from "string-width";

const segmenter = new Intl.Segmenter();
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Code points that can join a neighbour into one grapheme, or take no column. */
const CLUSTERING =
  /[\p{M}\p{Cf}\p{Cc}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]/u;
const ELLIPSIS = "…";
/** Widths of lone code points; cleared when full (CJK text alone has tens of thousands). */
const CODE_POINT_WIDTHS = new Map<string, number>();
const MAX_KEPT_WIDTHS = 1 << 16;

/** Text and the columns it takes. */
export interface Fitted {
  text: string;
  width: number;
}

/** Columns the text takes on a terminal; control characters count 0 (escape them first). */
export function displayWidth(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  if (CLUSTERING.test(s)) return stringWidth(s);
  let width = 0;
  for (const ch of s) width += codePointWidth(ch);
  return width;
}

function codePointWidth(ch: string): number {
  let w = CODE_POINT_WIDTHS.get(ch);
  if (w === undefined) {
    if (CODE_POINT_WIDTHS.size >= MAX_KEPT_WIDTHS) CODE_POINT_WIDTHS.clear();
    w = stringWidth(ch);
    CODE_POINT_WIDTHS.set(ch, w);
  }
  return w;
}

/** `s` cut to at most `max` columns, ending in "…" when cut; never splits a grapheme. */
export function fitWidth(s: string, max: number): Fitted {
  if (PRINTABLE_ASCII.test(s)) {
    if (s.length <= max) return { text: s, width: s.length };
    if (max < 1) return { text: "", width: 0 };
    return { text: s.slice(0, max - 1) + ELLIPSIS, width: max };
  }
  const width = displayWidth(s);
  if (width <= max) return { text: s, width };
  if (max < 1) return { text: "", width: 0 };
  const graphemes = CLUSTERING.test(s) ? segments(s) : s;
  let text = "";
  let used = 0;
  for (const g of graphemes) {
    const w = displayWidth(g);
    if (used + w > max - 1) break;
    text += g;
    used += w;
  }
  return { text: text + ELLIPSIS, width: used + 1 };
}

function* segments(s: string): Generator<string> {
  for (const { segment } of segmenter.segment(s)) yield segment;
}

/** `s` cut to at most `max` columns (see fitWidth). */
export function truncateToWidth(s: string, max: number): string {
  return fitWidth(s, max).text;
}
