#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/src/bin.js, from tsc) into dist/cli/: our own modules and zod
 * in a few files instead of ~270, because resolving and reading that many small files is most
 * of a short command's start-up (`push --dry-run` of a small file: see `npm run bench:startup`).
 * Lazy command loading survives: every dynamic import() becomes its own chunk (splitting).
 * Every other dependency stays external: loaded from node_modules as usual (native addons,
 * worker-thread transports, packages that read files beside their own modules).
 * Run by `npm run build`, after tsc.
 */
import { rmSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const pkg = (await import("../package.json", { with: { type: "json" } })).default;
const BUNDLED = new Set(["zod"]);
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * zod's namespace re-exports its error messages in some fifty languages (`z.locales`); the
 * bundle keeps English, the only one zod configures and the only one tas-sync prints: a third
 * less code for every command to parse at start.
 */
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${"/node_modules/zod/"}`)
        ? { path: "zod-locales-en", namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({
      contents: `export { default as en } from "zod/v4/locales/en.js";`,
      resolveDir: root,
    }));
  },
};

rmSync(`${root}dist/cli`, { recursive: true, force: true });
await build({
  // The plan reader's worker thread is a module of its own (src/sync/fresh-reader.ts finds it).
  entryPoints: [`${root}dist/src/bin.js`, `${root}dist/src/sync/fresh-worker.js`],
  entryNames: "[name]",
  outdir: `${root}dist/cli`,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // Node built-ins and the shebang are kept as they are; chunk names say what they hold.
  chunkNames: "chunks/[name]-[hash]",
  plugins: [englishOnly],
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
  legalComments: "none",
});
