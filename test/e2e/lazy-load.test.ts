/**
 * What the CLI loads, as recorded by a module loader hook in the child process: `--help` and
 * `<command> --help` load the catalogue and nothing of any command's implementation or of
 * node_modules; `push --dry-run` loads no Redis, HTTP, SQLite or logging library. Checked on
 * tsc's output (dist/src, one file per module, so the test can name them), and on the shipped
 * bundle (dist/cli, the `tas-sync` bin: esbuild keeps each lazy import a chunk of its own).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt, ROOT } from "../support/built-cli.js";

let dir: string;
let register: string;
let commandNames: string[];
const DIST = pathToFileURL(join(ROOT, "dist/src")).href;
const TSC_BIN = join(ROOT, "dist/src/bin.js");
const BUNDLE = pathToFileURL(join(ROOT, "dist/cli")).href;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-lazy-"));
  // Hooks run on their own thread: each loaded URL is appended to the file named in the env.
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.TAS_LOADED_LOG, url + "\\n");
  return next(url, context);
}
`,
  );
  register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const catalogue = (await import(join(ROOT, "dist/src/commands/index.js"))) as {
    commands: { name: string; passthrough?: unknown }[];
  };
  commandNames = catalogue.commands.filter((c) => !c.passthrough).map((c) => c.name);
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The URLs of the modules one run of the CLI loads. */
function loaded(args: string[], bin = TSC_BIN): string[] {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", register, bin, ...args], {
    cwd: ROOT,
    env: { ...process.env, TAS_LOADED_LOG: log, TAS_CONFIG: "" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

/** `push --dry-run` of the example seed file, with a config whose database is never opened. */
function dryRun(): string[] {
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/R",
      database: join(dir, "never.db"),
      auth: { token: "t" },
      companies: [{ id: 5251 }],
    }),
  );
  return ["push", "--dry-run", "--config", config, join(ROOT, "examples/scenarios.ndjson")];
}

const CATALOGUE = new Set([
  "bin.js",
  "cli.js",
  "errors.js",
  "commands/index.js",
  "commands/types.js",
  "commands/signals.js",
  "text/suggest.js",
  "text/args-error.js",
  "commands/format/defaults.js",
  "commands/catalog/pull.js",
  "commands/catalog/push.js",
  "commands/catalog/service.js",
  "commands/catalog/analytics.js",
]);

describe("what the CLI loads", () => {
  it("loads only the catalogue for --help and for each command's --help", () => {
    for (const args of [["--help"], ...commandNames.map((name) => [name, "--help"])]) {
      const urls = loaded(args);
      expect(
        urls.filter((u) => u.includes("/node_modules/")),
        args.join(" "),
      ).toEqual([]);
      const ours = urls.filter((u) => u.startsWith(`${DIST}/`)).map((u) => u.slice(DIST.length + 1));
      expect(
        ours.filter((f) => !CATALOGUE.has(f)),
        args.join(" "),
      ).toEqual([]);
      expect(ours).toContain("commands/catalog/push.js");
    }
  });

  it("loads no Redis, HTTP, SQLite or logging library for push --dry-run", () => {
    const urls = loaded(dryRun());
    const packages = new Set(
      urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1]).filter(Boolean),
    );
    expect([...packages]).toEqual(["zod"]);
    expect(urls.some((u) => u.endsWith("/commands/push.js"))).toBe(true);
    expect(urls.some((u) => u.endsWith("/commands/push-submit.js"))).toBe(false);
  });
});

describe("what the shipped bundle loads", () => {
  const chunks = (urls: string[]) =>
    urls.filter((u) => u.startsWith(`${BUNDLE}/`)).map((u) => u.slice(BUNDLE.length + 1));

  it("is the package's bin", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(join(ROOT, pkg.bin["tas-sync"] ?? "")).toBe(BIN);
  });

  it("loads no dependency and no command's implementation for --help", () => {
    for (const args of [["--help"], ["push", "--help"], ["daemon", "--help"]]) {
      const urls = loaded(args, BIN);
      expect(
        urls.filter((u) => u.includes("/node_modules/") || u.startsWith(`${DIST}/`)),
        args.join(" "),
      ).toEqual([]);
      expect(chunks(urls), args.join(" ")).toContain("bin.js");
      expect(
        chunks(urls).filter((c) => /^chunks\/(push|daemon|sync|sqlite|postgres|log|command)-/.test(c)),
        args.join(" "),
      ).toEqual([]);
    }
  });

  it("loads nothing from node_modules for push --dry-run: zod is in the bundle", () => {
    const urls = loaded(dryRun(), BIN);
    expect(urls.filter((u) => u.includes("/node_modules/"))).toEqual([]);
    expect(chunks(urls).some((c) => /^chunks\/push-[A-Z0-9]+\.js$/.test(c))).toBe(true);
    expect(chunks(urls).filter((c) => /^chunks\/(push-submit|sqlite|postgres|log)-/.test(c))).toEqual([]);
  });
});
