/** Control characters from outside never reach a terminal raw. */
import { describe, expect, it } from "vitest";
import { escapeControls } from "../../src/text/escape.js";

describe("escapeControls", () => {
  it.each([
    ["ESC of a colour sequence", "a\x1b[31mred", "a\\x1b[31mred"],
    ["newline, tab and CR by name", "a\nb\tc\rd", "a\\nb\\tc\\rd"],
    ["NUL", "a\x00b", "a\\x00b"],
    ["DEL", "a\x7fb", "a\\x7fb"],
    ["C1 (CSI, NEL)", "a\u009b2Jb\u0085", "a\\x9b2Jb\\x85"],
    ["bidi override and isolate", "abc\u202eevil\u2066", "abc\\u{202e}evil\\u{2066}"],
    ["line and paragraph separators", "a\u2028b\u2029", "a\\u{2028}b\\u{2029}"],
    ["a lone high surrogate", "a\ud83d", "a\\u{d83d}"],
    ["a lone low surrogate", "\ude00b", "\\u{de00}b"],
  ])("escapes %s", (_, input, expected) => {
    expect(escapeControls(input)).toBe(expected);
  });

  it.each([
    ["plain ASCII", "hello, world"],
    ["CJK", "日本語"],
    ["emoji (surrogate pairs)", "ok 👍 👨‍👩‍👧 🇹🇷"],
    ["combining marks", "e\u0301"],
    ["a backslash", "C:\\temp"],
  ])("leaves %s alone", (_, input) => {
    expect(escapeControls(input)).toBe(input);
  });

  it("escapes the replacement character only when asked (it stands for bytes that were not UTF-8)", () => {
    expect(escapeControls("a\ufffdb")).toBe("a\ufffdb");
    expect(escapeControls("a\ufffdb", { replacement: true })).toBe("a\\u{fffd}b");
  });

  it("leaves no character below U+0020 or in U+007F..U+009F", () => {
    const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
    expect(escapeControls(all)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });
});
