/** Terminal columns: CJK and emoji are two wide, marks none; cuts keep graphemes whole. */
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { displayWidth, fitWidth, truncateToWidth } from "../../src/commands/format/width.js";

const FAMILY = "👨‍👩‍👧";
const FLAG = "🇹🇷";

describe("displayWidth", () => {
  it.each([
    ["ASCII", "hello", 5],
    ["CJK", "日本語", 6],
    ["Hangul syllables", "한국어", 6],
    ["fullwidth letters", "ＡＢ", 4],
    ["an emoji", "👍", 2],
    ["a ZWJ family", FAMILY, 2],
    ["a flag", FLAG, 2],
    ["an emoji with a skin tone", "👍🏽", 2],
    ["a combining accent", "e\u0301", 1],
    ["stacked marks", "a\u0300\u0301\u0302", 1],
    ["mixed", `id 日本 ${FAMILY}é`, 11],
    ["the empty string", "", 0],
  ])("measures %s", (_, s, width) => {
    expect(displayWidth(s)).toBe(width);
  });

  it("agrees with string-width on text it measures without segmenting", () => {
    const samples = [
      "Ça va",
      "naïve café",
      "日本語テキスト",
      "Ελληνικά",
      "Привет мир",
      "名前 name-1",
      "→ ± × ÷",
      "한국어 텍스트",
    ];
    for (const s of samples) expect(displayWidth(s), s).toBe(stringWidth(s));
  });
});

describe("fitWidth", () => {
  it.each([
    ["keeps text that fits", "abc", 3, "abc"],
    ["cuts ASCII with an ellipsis", "abcdef", 4, "abc…"],
    ["cuts CJK on a character, never half of one", "日本語テキスト", 6, "日本…"],
    ["keeps an accent on its letter", "e\u0301e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301…"],
    ["keeps a ZWJ family whole", `${FAMILY}${FAMILY}`, 3, `${FAMILY}…`],
    ["drops a family whole when it does not fit", `a${FAMILY}`, 2, "a…"],
    ["keeps a flag whole", `${FLAG}${FLAG}`, 3, `${FLAG}…`],
  ])("%s", (_, s, max, expected) => {
    expect(truncateToWidth(s, max)).toBe(expected);
  });

  it("never returns more columns than asked, and reports the width it returns", () => {
    const samples = [
      "x".repeat(60),
      "日本語".repeat(20),
      `${FAMILY}${FLAG}é日`.repeat(9),
      "a\u0301".repeat(50),
    ];
    for (const s of samples) {
      for (let max = 1; max <= 12; max++) {
        const fitted = fitWidth(s, max);
        expect(fitted.width).toBeLessThanOrEqual(max);
        expect(fitted.width).toBe(displayWidth(fitted.text));
      }
    }
  });
});
