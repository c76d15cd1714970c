/**
 * Every relative link of the README, docs/ and bench/README.md leads somewhere: the file exists,
 * and an #anchor names a heading of that file (GitHub's slugs). Moving text between pages
 * must not leave a link behind.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const pages = [
  "README.md",
  "bench/README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1] ?? "")));
}

/** Markdown links outside code blocks and code spans. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");
}

describe("links between the docs", () => {
  it.each(pages)("every relative link of %s leads to a file and a heading", (page) => {
    const broken: string[] = [];
    for (const link of linksOf(readFileSync(join(ROOT, page), "utf8"))) {
      if (/^[a-z]+:/.test(link)) continue;
      const [file, anchor] = link.split("#");
      const target = file ? join(ROOT, dirname(page), file) : join(ROOT, page);
      if (!existsSync(target)) broken.push(`${link} (no file ${relative(ROOT, target)})`);
      else if (anchor && target.endsWith(".md") && !anchorsOf(target).has(anchor))
        broken.push(`${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
    }
    expect(broken).toEqual([]);
  });
});

describe("copies of the example files in the docs", () => {
  it.each(pages)("every code block shown as examples/FILE in %s is that file as it is", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    const stale: string[] = [];
    // A link to an example file, then (in the same paragraph or the next) a fenced block.
    for (const m of text.matchAll(
      /\[`?(?:\.\.\/)*examples\/([\w.-]+)`?\]\([^)]*\)(?:(?!\n```)[\s\S])*?\n```\w*\n([\s\S]*?)^```/gm,
    )) {
      const file = join(ROOT, "examples", m[1] ?? "");
      if (readFileSync(file, "utf8").trimEnd() !== (m[2] ?? "").trimEnd()) stale.push(`examples/${m[1]}`);
    }
    expect(stale).toEqual([]);
  });
});
