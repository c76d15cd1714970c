import { defineConfig } from "vitest/config";

const ci = process.env.CI === "true";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Removes the databases and Redis keys that test processes now gone left behind.
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests share one Redis and spawn servers; the machine has two cores.
    maxWorkers: 2,
    // CI reads the counts from the JSON report, and failed files and unhandled errors from its
    // own summary (.ci/run prints "N passed, N failed, N failed files, N unhandled errors").
    reporters: ci ? ["default", "json", "./test/support/ci-summary-reporter.ts"] : ["default"],
    outputFile: ci ? { json: ".vitest-report.json" } : {},
  },
});
