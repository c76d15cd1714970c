#!/usr/bin/env node
/**
 * `npm run docs`: writes the reference pages generated from the code (src/docs/: the command
 * catalog, the zod config schema, the drizzle schemas) into docs/reference/. Run after the
 * build (`npm run docs` builds first if anything changed). Whether the pages on disk are
 * current is checked by test/unit/docs-reference.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const { referencePages } = await import(join(root, "dist/src/docs/index.js"));
for (const page of referencePages()) {
  const path = join(root, page.path);
  let old = null;
  try {
    old = readFileSync(path, "utf8");
  } catch {}
  if (old === page.text) continue;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, page.text);
  console.log(`wrote ${page.path}`);
}
