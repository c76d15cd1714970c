/** Global options before the command (cli.ts hoistGlobals) and environment overrides of the config file. */
import { describe, expect, it } from "vitest";
import { hoistGlobals } from "../../src/cli.js";
import { withEnvOverrides } from "../../src/config/index.js";

describe("hoistGlobals", () => {
  it.each<[string[], string[]]>([
    [
      ["-c", "a.json", "sync"],
      ["sync", "-c", "a.json"],
    ],
    [
      ["--config=a.json", "-v", "sync", "--company", "5"],
      ["sync", "--company", "5", "--config=a.json", "-v"],
    ],
    [
      ["--log-level", "debug", "push", "f.ndjson"],
      ["push", "f.ndjson", "--log-level", "debug"],
    ],
    [
      ["sync", "-c", "a.json"],
      ["sync", "-c", "a.json"],
    ],
    [["--help"], ["--help"]],
    [[], []],
  ])("%j runs as %j", (argv, expected) => {
    expect(hoistGlobals(argv)).toEqual({ argv: expected });
  });

  it.each<[string[], string]>([
    [["-c"], "option -c needs a value"],
    [["-c", "a.json"], "expected a command after the options (see tas-sync --help)"],
    [
      ["--company", "5", "sync"],
      'expected a command before the options, got "--company" (see tas-sync --help)',
    ],
  ])("%j is refused: %s", (argv, problem) => {
    expect(hoistGlobals(argv)).toEqual({ problem });
  });
});

describe("withEnvOverrides", () => {
  const file = { redisUrl: "redis://file:6379", database: "./file.db", companies: [] };

  it("puts REDIS_URL and TAS_DATABASE over the file's keys and says which it applied", () => {
    expect(
      withEnvOverrides(file, { REDIS_URL: "redis://env:6379", TAS_DATABASE: "postgres://h/db" }),
    ).toEqual({
      raw: { ...file, redisUrl: "redis://env:6379", database: "postgres://h/db" },
      applied: ["REDIS_URL", "TAS_DATABASE"],
    });
  });

  it("leaves the file as it is when the variables are unset or empty", () => {
    expect(withEnvOverrides(file, { REDIS_URL: "" })).toEqual({ raw: file, applied: [] });
  });

  it("leaves a file that is not an object for the schema to refuse", () => {
    expect(withEnvOverrides([1], { REDIS_URL: "redis://env" })).toEqual({ raw: [1], applied: [] });
  });
});
