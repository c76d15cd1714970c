/**
 * For .ci/run: the failed test files and the unhandled errors, which its closing line counts
 * and names (the test counts it reads from vitest's JSON report). A test file can fail with no
 * test failing (a beforeAll or afterAll hook threw, the file did not load), and an error can
 * escape every test (an unhandled rejection, an 'error' event nobody listens to): either makes
 * vitest exit 1 while every test passed.
 */
import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

const SUMMARY_FILE = ".vitest-summary.json";

export default class CiSummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string; name?: string }>,
  ): void {
    const failedFiles = testModules
      .filter((m) => m.state() === "failed")
      .map((m) => ({ file: m.moduleId, errors: m.errors().map((e) => e.message) }));
    const unhandled = unhandledErrors.map((e) => `${e.name ?? "Error"}: ${e.message ?? String(e)}`);
    writeFileSync(SUMMARY_FILE, `${JSON.stringify({ failedFiles, unhandledErrors: unhandled }, null, 2)}\n`);
  }
}
