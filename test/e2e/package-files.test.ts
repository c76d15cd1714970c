/**
 * What `npm pack` ships (from `npm pack --dry-run --json`): the built CLI, the migrations, the
 * README, docs/, the examples, a LICENSE, and no test, source or benchmark. Installing the
 * tarball and running the demo needs the registry: scripts/check-package.mjs does that.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "../support/built-cli.js";

let shipped: string[];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

beforeAll(async () => {
  await ensureBuilt();
  // --ignore-scripts: the build is fresh (above); prepare would only check that again.
  const json = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [pack] = JSON.parse(json) as { files: { path: string }[] }[];
  shipped = (pack?.files ?? []).map((f) => f.path).sort();
}, 120_000);

describe("the npm package", () => {
  it("ships the whole built CLI, the migrations, README, LICENSE, docs and examples", () => {
    const expected = [
      "package.json",
      "README.md",
      "LICENSE",
      ...filesUnder("dist/cli"),
      ...filesUnder("migrations"),
      ...filesUnder("docs"),
      ...filesUnder("examples"),
    ].sort();
    expect(shipped).toEqual(expected);
    expect(shipped).toContain("dist/cli/bin.js");
    expect(shipped).toContain("migrations/sqlite/meta/_journal.json");
    expect(shipped).toContain("migrations/postgres/meta/_journal.json");
  });

  it("ships no test, source, benchmark, chaos runner or build script", () => {
    const unwanted = shipped.filter((p) =>
      /^(test|src|bench|chaos|scripts|jobs)\/|^dist\/(src|bench|chaos|jobs)\/|\.test\.|\.ts$/.test(p),
    );
    expect(unwanted).toEqual([]);
  });

  it("is publishable: not private, MIT licensed with the license text, and its bin is shipped", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    expect(shipped).toContain((pkg.bin as Record<string, string>)["tas-sync"]);
  });
});
