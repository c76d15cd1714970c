#!/usr/bin/env node
// Issue 26 items 1 and 2, replayable: moves the files of moves.mjs with `git mv`, rewrites every relative
// module specifier that points at a moved file or sits in one (parsed with the TypeScript compiler: import,
// export ... from, import(), import("...") types, vi.mock/doMock/importActual and new URL(..., import.meta.url)),
// rewrites repo paths ("src/schema/...") in docs, configs, scripts and string literals, and updates
// docs/development.md's layout block. Run from the repository root on a clean tree; running it again changes
// nothing. `--dry-run` prints what it would do.
//
//   node scripts/restructure/run.mjs [--dry-run]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, posix } from "node:path";
import ts from "typescript";
import { DOC_EDITS, EDITS, LAYOUT, MOVES } from "./moves.mjs";

const dry = process.argv.includes("--dry-run");
const git = (...args) => execFileSync("git", args, { encoding: "utf8", maxBuffer: 1 << 28 });
if (!existsSync("package.json") || !existsSync("src")) throw new Error("run from the repository root");

const tracked = git("ls-files", "-z").split("\0").filter(Boolean);
const trackedSet = new Set(tracked);
for (const m of MOVES) {
  for (const n of MOVES) if (n.to.startsWith(m.from)) throw new Error(`move map: ${n.to} lies under ${m.from}`);
}

/** Where a repo path goes (a file, or a folder given with a trailing "/"); undefined when it stays. */
function moved(p) {
  const file = MOVES.find((m) => !m.from.endsWith("/") && m.from === p);
  if (file) return file.to;
  let best;
  for (const m of MOVES) {
    if (m.from.endsWith("/") && p.startsWith(m.from) && (!best || m.from.length > best.from.length)) best = m;
  }
  return best ? best.to + p.slice(best.from.length) : undefined;
}

// 1. The file moves: every tracked file whose rule says so (none on a second run: the sources are gone).
const fileMoves = new Map();
for (const f of tracked) {
  const to = moved(f);
  if (to === undefined) continue;
  if (trackedSet.has(to)) throw new Error(`${f} -> ${to}: the target exists`);
  fileMoves.set(f, to);
}
const targets = new Map();
for (const [f, t] of fileMoves) {
  if (targets.has(t)) throw new Error(`${targets.get(t)} and ${f} would both move to ${t}: add a file rule to moves.mjs`);
  targets.set(t, f);
}
const after = (f) => fileMoves.get(f) ?? f;

// 2. The module specifiers, found by parsing each code file.
const CODE = /\.(ts|mts|cts|tsx|mjs|js|cjs)$/;
const codeRoots = ["src/", "test/", "bench/", "chaos/", "jobs/", "scripts/"];
const codeFiles = tracked.filter(
  (f) => CODE.test(f) && (codeRoots.some((r) => f.startsWith(r)) || !f.includes("/")) && !f.endsWith(".d.ts"),
);
const MOCKS = new Set(["mock", "doMock", "unmock", "doUnmock", "importActual", "importMock"]);

/** The string literals of a file that name a module or file relative to it: [node, text]. */
function specifiers(file, text) {
  const kind = file.endsWith("x") ? ts.ScriptKind.TSX : /\.(m|c)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out = [];
  const lit = (n) => n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n));
  const visit = (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && lit(n.moduleSpecifier)) out.push(n.moduleSpecifier);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && lit(n.argument.literal)) {
      out.push(n.argument.literal);
    } else if (ts.isCallExpression(n) && lit(n.arguments[0])) {
      const c = n.expression;
      const isImport = c.kind === ts.SyntaxKind.ImportKeyword;
      const isMock =
        ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === "vi" && MOCKS.has(c.name.text);
      const isRequire = ts.isIdentifier(c) && c.text === "require";
      if (isImport || isMock || isRequire) out.push(n.arguments[0]);
    } else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "URL" && lit(n.arguments?.[0])) {
      const base = n.arguments[1];
      if (base && base.getText(sf) === "import.meta.url") out.push(n.arguments[0]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out.filter((n) => n.text.startsWith("./") || n.text.startsWith("../")).map((n) => [n, sf]);
}

const TS_FOR_JS = { ".js": [".ts", ".tsx", ".js"], ".mjs": [".mts", ".mjs"], ".cjs": [".cts", ".cjs"] };
/** The tracked file a specifier names, and how to spell the new one the same way. */
function resolveSpec(from, spec) {
  const abs = posix.normalize(posix.join(posix.dirname(from), spec));
  const ext = extname(abs);
  const tries = [];
  if (TS_FOR_JS[ext]) for (const e of TS_FOR_JS[ext]) tries.push([abs.slice(0, -ext.length) + e, (t) => t.slice(0, -extname(t).length) + ext]);
  tries.push([abs, (t) => t]);
  for (const e of [".ts", ".tsx", ".mts", ".js", ".mjs"]) tries.push([abs + e, (t) => t.slice(0, -e.length)]);
  for (const e of ["/index.ts", "/index.js"]) tries.push([abs + e, (t) => t.slice(0, -e.length)]);
  for (const [target, spell] of tries) if (trackedSet.has(target)) return { target, spell };
  return undefined;
}

const edits = new Map(); // file (old path) -> its new text
let rewritten = 0;
for (const f of codeFiles) {
  const text = readFileSync(f, "utf8");
  const changes = [];
  for (const [node, sf] of specifiers(f, text)) {
    const r = resolveSpec(f, node.text);
    if (!r) continue;
    if (!fileMoves.has(f) && !fileMoves.has(r.target)) continue;
    let spec = posix.relative(posix.dirname(after(f)), r.spell(after(r.target)));
    if (!spec.startsWith(".")) spec = `./${spec}`;
    if (spec === node.text) continue;
    const start = node.getStart(sf) + 1;
    changes.push([start, start + node.text.length, spec]);
  }
  if (!changes.length) continue;
  let out = text;
  for (const [s, e, spec] of changes.sort((a, b) => b[0] - a[0])) out = out.slice(0, s) + spec + out.slice(e);
  edits.set(f, out);
  rewritten += changes.length;
}

// 3. Repo paths written as text ("src/schema/descriptions.ts", "./src/schema/sqlite/index.ts", `src/observe/`)
// in every tracked text file but the generated and vendored ones.
const TEXT = /\.(ts|mts|tsx|mjs|js|cjs|json|md|yml|yaml|sh)$|(^|\/)\.ci\/run$/;
const SKIP = /^(migrations|dist|node_modules)\/|^package-lock\.json$|^scripts\/restructure\//;
const PATH = /(?<![\w@-])src\/[A-Za-z0-9_./*-]*/g;
/** A text path's new spelling: a moved file (with or without its extension) or a moved folder. */
function movedText(p) {
  const trail = p.match(/[.]+$/)?.[0] ?? ""; // a sentence's full stop
  const core = trail ? p.slice(0, -trail.length) : p;
  const ext = extname(core);
  const candidates = [[core, (t) => t]];
  if (TS_FOR_JS[ext]) candidates.push([core.slice(0, -ext.length) + TS_FOR_JS[ext][0], (t) => t.slice(0, -extname(t).length) + ext]);
  if (!ext && !core.endsWith("/")) candidates.push([`${core}.ts`, (t) => t.slice(0, -3)], [`${core}/`, (t) => t.slice(0, -1)]);
  for (const [c, spell] of candidates) {
    if (c.endsWith("/") || c.includes("*")) {
      const star = c.indexOf("*");
      const dir = c.slice(0, c.lastIndexOf("/", star < 0 ? c.length : star) + 1);
      const to = moved(dir);
      if (to?.endsWith("/")) return spell(to + c.slice(dir.length)) + trail;
    } else if (fileMoves.has(c) || (!trackedSet.has(c) && moved(c))) {
      return spell(fileMoves.get(c) ?? moved(c)) + trail;
    }
  }
  return undefined;
}
let textPaths = 0;
for (const f of tracked) {
  if (!TEXT.test(f) || SKIP.test(f) || !existsSync(f)) continue;
  const text = edits.get(f) ?? readFileSync(f, "utf8");
  const out = text.replace(PATH, (p) => {
    const n = movedText(p);
    if (n === undefined || n === p) return p;
    textPaths++;
    return n;
  });
  if (out !== text) edits.set(f, out);
}

// 4. docs/development.md: the layout block and the named edits.
const DEV = "docs/development.md";
const notes = [];
if (existsSync(DEV)) {
  let text = edits.get(DEV) ?? readFileSync(DEV, "utf8");
  const start = text.indexOf("```text\nsrc/\n");
  const end = start < 0 ? -1 : text.indexOf("\n```", start + 8);
  if (start < 0 || end < 0) notes.push(`${DEV}: no layout block found: edit the layout by hand`);
  else {
    const lines = text.slice(start, end).split("\n");
    for (const { entry, lines: repl } of LAYOUT) {
      const at = lines.findIndex((l) => l.startsWith(`  ${entry} `));
      if (at < 0) continue; // done already, or renamed by hand
      let stop = at + 1;
      while (stop < lines.length && /^ {4,}\S/.test(lines[stop]) && !/^ {2}\S/.test(lines[stop])) stop++;
      lines.splice(at, stop - at, ...(repl ?? []));
    }
    text = text.slice(0, start) + lines.join("\n") + text.slice(end);
  }
  for (const e of DOC_EDITS) {
    if (text.includes(e.before)) text = text.replace(e.before, e.after);
    else if (!text.includes(e.after)) notes.push(`${DEV}: not found, edit by hand: ${e.before}`);
  }
  if (text !== readFileSync(DEV, "utf8")) edits.set(DEV, text);
}

// 5. Apply: contents first (at the old paths), then the moves, then the exact edits at the new paths.
if (dry) {
  for (const [f, t] of fileMoves) console.log(`move ${f} -> ${t}`);
  for (const f of edits.keys()) console.log(`edit ${f}`);
} else {
  for (const [f, text] of edits) writeFileSync(f, text);
  for (const [f, t] of fileMoves) {
    mkdirSync(dirname(t), { recursive: true });
    git("mv", f, t);
  }
  for (const e of EDITS) {
    if (!existsSync(e.file)) continue;
    const text = readFileSync(e.file, "utf8");
    if (text.includes(e.before)) writeFileSync(e.file, text.replace(e.before, e.after));
    else if (!text.includes(e.after)) notes.push(`${e.file}: not found, check by hand (${e.why}): ${e.before}`);
  }
  // The new paths sort differently: let biome order the imports of the files touched (a safe fix only).
  const touched = [...edits.keys()].map(after).filter((f) => /\.(ts|mts|tsx)$/.test(f) && existsSync(f));
  if (touched.length) {
    try {
      execFileSync("node_modules/.bin/biome", ["check", "--write", "--no-errors-on-unmatched", ...touched], { stdio: "pipe" });
    } catch (e) {
      notes.push(`biome check --write left findings (run npm run lint): ${String(e.stdout ?? e).split("\n").slice(-4).join(" ")}`);
    }
  }
}
console.log(
  `${fileMoves.size} files moved, ${rewritten} module specifiers rewritten, ${textPaths} text paths rewritten, ` +
    `${edits.size} files edited${dry ? " (dry run: nothing written)" : ""}`,
);
for (const n of notes) console.log(`note: ${n}`);
if (!dry) {
  // Stages must still import only the stages before them.
  const tool = ["../shared/tools/import-cycles.mjs", "/work/shared/tools/import-cycles.mjs"].find(existsSync);
  if (tool) {
    try {
      execFileSync(process.execPath, [tool], { stdio: "pipe" });
      console.log("import-cycles: clean");
    } catch (e) {
      console.log(`import-cycles: NOT clean, fix the move map:\n${e.stdout}`);
      process.exitCode = 1;
    }
  }
}
