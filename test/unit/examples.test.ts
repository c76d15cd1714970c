/** The example files the README points at stay valid: the config parses with every key. */
import { readFileSync } from "node:fs";
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
