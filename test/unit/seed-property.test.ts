/** parseSeed is total: any bytes, any format, give rows and problems with usable line numbers. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkSeed, parseSeed, validRows } from "../../src/seed/parse.js";
import type { SeedFormat, SeedParseResult } from "../../src/seed/types.js";
import { garbage, weirdNumber, weirdString } from "../support/wire-arbitraries.js";

const encoder = new TextEncoder();
const FORMATS: SeedFormat[] = ["ndjson", "json", "csv"];
const RUNS = { numRuns: 300 };

/** Physical lines of the bytes as the reader counts them (LF ends a line; a BOM is not a line). */
function lineCount(bytes: Uint8Array): number {
  let n = 1;
  for (const b of bytes) if (b === 0x0a) n++;
  return n;
}

function checkLines(bytes: Uint8Array, r: SeedParseResult): void {
  const max = lineCount(bytes) + 1;
  for (const p of r.invalid) {
    expect(Number.isInteger(p.line), `line of ${JSON.stringify(p)}`).toBe(true);
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.line).toBeLessThanOrEqual(max);
    expect(p.reason.trim()).not.toBe("");
  }
  for (const row of r.valid) {
    expect(row.line).toBeGreaterThanOrEqual(1);
    expect(row.line).toBeLessThanOrEqual(max);
  }
  expect(r.valid.length).toBeLessThanOrEqual(r.total);
}

const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 10, arbitrary: right }, { weight: 1, arbitrary: garbage });

/** A seed row: usually right, with wrong types, aliases, links and unknown fields mixed in. */
/** Present now and then: undefined keys are left out when the row is serialized. */
const sometimes = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: mostly(a) });

const seedRow = fc
  .tuple(
    fc.record({
      project_id: mostly(fc.constantFrom(52511, 52512)),
      scenario_name: mostly(fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), weirdString)),
      source_file: mostly(fc.constantFrom("Login.java", "Cart.spec")),
      key: sometimes(fc.constantFrom("a", "b", "c", "d", 7)),
      parent_key: sometimes(fc.constantFrom("a", "b", "c", "zz")),
      company_id: sometimes(fc.constantFrom(5251, 5252, "5251")),
      description: sometimes(weirdString),
      max_execution_time: sometimes(fc.oneof(fc.nat(), weirdNumber)),
      test_management_enabled: sometimes(fc.boolean()),
      testrail_enabled: sometimes(fc.boolean()),
      parent: sometimes(fc.oneof(fc.constant({}), fc.record({ id: fc.nat(), project_id: weirdNumber }))),
    }),
    fc.dictionary(weirdString, garbage, { maxKeys: 2 }),
  )
  .map(([row, extra]) => JSON.parse(JSON.stringify({ ...extra, ...row })) as Record<string, unknown>);

const csvCell = (v: unknown): string => {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? "");
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

function render(rows: Record<string, unknown>[], format: SeedFormat, eol: string): string {
  if (format === "ndjson") return rows.map((r) => JSON.stringify(r)).join(eol);
  if (format === "json") return `[${eol}${rows.map((r) => JSON.stringify(r)).join(`,${eol}`)}${eol}]`;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [
    columns.map(csvCell).join(","),
    ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(",")),
  ];
  return lines.join(eol);
}

/** Damage as files get it: a BOM, a stray byte that is not UTF-8, a cut, a byte overwritten. */
const damage = fc.oneof(
  { weight: 4, arbitrary: fc.constant((b: Uint8Array) => b) },
  fc.constant((b: Uint8Array) => Uint8Array.from([0xef, 0xbb, 0xbf, ...b])),
  fc.nat().map((n) => (b: Uint8Array) => b.subarray(0, n % (b.length + 1))),
  fc
    .tuple(fc.nat(), fc.constantFrom(0xff, 0xc3, 0x80, 0x00, 0x0a, 0x0d, 0x22, 0x2c, 0x5b, 0x7d))
    .map(([at, byte]) => (b: Uint8Array) => {
      const out = Uint8Array.from(b);
      if (out.length > 0) out[at % out.length] = byte;
      return out;
    }),
);

const seedFile = fc
  .tuple(
    fc.array(seedRow, { maxLength: 8 }),
    fc.constantFrom<SeedFormat>(...FORMATS),
    fc.constantFrom("\n", "\r\n", "\n\n"),
    damage,
  )
  .map(([rows, format, eol, hurt]) => hurt(encoder.encode(render(rows, format, eol))));

const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 400 }),
  fc.string({ unit: "binary", maxLength: 200 }).map((s) => encoder.encode(s)),
  seedFile,
);

describe("parseSeed on hostile bytes", () => {
  it.each(FORMATS)("never throws as %s, and every problem names a line of the file", (format) => {
    fc.assert(
      fc.property(anyBytes, fc.boolean(), (bytes, oneCompany) => {
        const r = parseSeed(bytes, format, oneCompany ? { defaultCompanyId: 5251 } : {});
        expect(r.format).toBe(format);
        checkLines(bytes, r);
      }),
      RUNS,
    );
  });

  it("reads undamaged seed-like files into rows often enough for the property to mean something", () => {
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(
        fc.array(seedRow, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(...FORMATS),
        (rows, format) => {
          const bytes = encoder.encode(render(rows, format, "\n"));
          const r = parseSeed(bytes, format, { defaultCompanyId: 5251 });
          checkLines(bytes, r);
          valid += r.valid.length;
          invalid += r.invalid.length;
        },
      ),
      RUNS,
    );
    expect(valid).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(100);
  });
});

describe("reading a file a chunk at a time", () => {
  /** checkSeed + validRows over the bytes cut at the given places, as parseSeed's result. */
  function chunked(bytes: Uint8Array, cuts: number[], format: SeedFormat): SeedParseResult {
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const source = () => {
      const parts: Uint8Array[] = [];
      let from = 0;
      for (const to of [...at, bytes.length]) {
        parts.push(bytes.subarray(from, to));
        from = to;
      }
      return parts;
    };
    const opts = { defaultCompanyId: 5251 };
    const check = checkSeed(source, format, opts);
    const rows = new Map(
      [...validRows(source, format, opts, check)].map(({ index, ...row }) => [index, row]),
    );
    const valid = [...check.order].map((i) => rows.get(i)!);
    return { format, total: check.total, valid, invalid: check.invalid, warnings: check.warnings };
  }

  it.each(FORMATS)("gives %s the same rows, problems and warnings wherever the chunks end", (format) => {
    fc.assert(
      fc.property(anyBytes, fc.array(fc.nat(), { maxLength: 12 }), (bytes, cuts) => {
        expect(chunked(bytes, cuts, format)).toEqual(parseSeed(bytes, format, { defaultCompanyId: 5251 }));
      }),
      RUNS,
    );
  });
});
