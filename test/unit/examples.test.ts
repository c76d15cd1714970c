/** The example files the README points at stay valid: the config parses with every key. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";

const ROOT = join(import.meta.dirname, "../..");

describe("examples/", () => {
  it("tas-sync.config.example.json is a valid config (secrets from the environment)", () => {
    const raw = JSON.parse(
      readFileSync(join(ROOT, "examples/tas-sync.config.example.json"), "utf8"),
    ) as unknown;
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_t, name) =>
        String(name).endsWith("_URL") ? "https://hooks.example/T0" : `value-of-${String(name)}`,
    });
    const cfg = parseConfig(raw, "example", env);
    expect(cfg.sync.every).toBe(15 * 60_000);
    expect(cfg.server.username).toBe("prometheus");
    expect(cfg.alerts.webhookUrl).toBeDefined();
  });
});

describe("configs shown in the README and docs/", () => {
  const pages = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const configs = pages.flatMap((page) =>
    [...readFileSync(join(ROOT, page), "utf8").matchAll(/^```json\n([\s\S]*?)^```/gm)]
      .map((m) => m[1] ?? "")
      .filter((block) => block.includes('"baseUrl"') && block.includes('"companies"'))
      .map((block, i) => [`${page} #${i + 1}`, block] as const),
  );

  it("finds the quickstart's config", () => {
    expect(configs.map(([where]) => where)).toContain("README.md #1");
  });

  it.each(configs)("%s is a valid config", (_where, block) => {
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_t, name) =>
        String(name).endsWith("_URL") ? "https://hooks.example/T0" : `value-of-${String(name)}`,
    });
    expect(() => parseConfig(JSON.parse(block), "docs", env)).not.toThrow();
  });
});
