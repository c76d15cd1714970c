import { defineConfig } from "vitest/config";

const ci = process.env.CI === "true";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests share one Redis and spawn servers; the machine has two cores.
    maxWorkers: 2,
    // CI reads the counts from the JSON report (.ci/run prints "N passed, N failed").
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".vitest-report.json" } : {},
  },
});
