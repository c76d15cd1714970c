/**
 * The reference pages in docs/reference/ are what `npm run docs` generates from the code today,
 * and the code has words for everything they list: every table, view and column of both
 * schemas (src/tables/descriptions.ts), every config key (src/config/descriptions.ts). A schema
 * change without its words, or without regenerating the pages, fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_KEY_DOCS } from "../../src/config/descriptions.js";
import { documentedKeys } from "../../src/docs/config-page.js";
import { referencePages } from "../../src/docs/index.js";
import { relationsOf } from "../../src/docs/tables-page.js";
import { TABLE_DOCS, VIEW_DOCS } from "../../src/tables/descriptions.js";

const ROOT = join(import.meta.dirname, "../..");

describe("generated reference pages", () => {
  it.each(referencePages().map((p) => [p.path, p.text] as const))(
    "%s is up to date (else: npm run docs)",
    (path, text) => {
      let onDisk = "";
      try {
        onDisk = readFileSync(join(ROOT, path), "utf8");
      } catch {
        // missing: compared as empty, so the message says to generate it
      }
      expect(onDisk === text, `${path} differs from what npm run docs generates: run npm run docs`).toBe(
        true,
      );
    },
  );
});

describe.each(["sqlite", "postgres"] as const)(
  "words for every table and column of the %s schema",
  (dialect) => {
    const relations = relationsOf(dialect);

    it.each(relations.map((r) => [r.kind, r.name, r] as const))("%s %s", (kind, name, relation) => {
      const doc = (kind === "table" ? TABLE_DOCS : VIEW_DOCS)[name];
      expect(doc, `${kind} ${name} has no entry in src/tables/descriptions.ts`).toBeDefined();
      expect(doc?.summary.trim()).not.toBe("");
      const missing = relation.columns.map((c) => c.name).filter((c) => !doc?.columns[c]?.trim());
      expect(missing, `columns of ${name} without words in src/tables/descriptions.ts`).toEqual([]);
      const gone = Object.keys(doc?.columns ?? {}).filter(
        (c) => !relation.columns.some((col) => col.name === c),
      );
      expect(gone, `src/tables/descriptions.ts describes columns ${name} does not have`).toEqual([]);
    });

    it("describes no table or view the schema does not have", () => {
      const names = new Set(relations.map((r) => `${r.kind} ${r.name}`));
      const described = [
        ...Object.keys(TABLE_DOCS).map((n) => `table ${n}`),
        ...Object.keys(VIEW_DOCS).map((n) => `view ${n}`),
      ];
      expect(described.filter((n) => !names.has(n))).toEqual([]);
    });
  },
);

describe("words for every config key", () => {
  const keys = documentedKeys().map((k) => k.path);

  it("has a description for each key of the zod schema", () => {
    expect(keys.filter((k) => !CONFIG_KEY_DOCS[k]?.description.trim())).toEqual([]);
    expect(keys.length).toBeGreaterThan(40);
  });

  it("describes no key the schema does not have", () => {
    expect(Object.keys(CONFIG_KEY_DOCS).filter((k) => !keys.includes(k))).toEqual([]);
  });
});
