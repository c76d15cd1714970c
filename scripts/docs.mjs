#!/usr/bin/env node
/**
 * `npm run docs`: writes the reference pages generated from the code (src/docs/: the command
 * catalog, the zod config schema, the drizzle schemas) into docs/reference/. Run after the
 * build (`npm run docs` builds first if anything changed). With --check it writes nothing and
 * exits 1 when a page on disk differs, naming it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const { referencePages } = await import(join(root, "dist/src/docs/index.js"));
const check = process.argv.includes("--check");
let stale = 0;
for (const page of referencePages()) {
  const path = join(root, page.path);
  let old = null;
  try {
    old = readFileSync(path, "utf8");
  } catch {}
  if (old === page.text) continue;
  if (check) {
    console.error(`${page.path} is stale: run npm run docs`);
    stale++;
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, page.text);
    console.log(`wrote ${page.path}`);
  }
}
process.exit(stale ? 1 : 0);
