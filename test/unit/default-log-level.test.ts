/** The level a command logs at when neither --log-level nor TAS_LOG_LEVEL says (cli.ts defaultLevel). */
import { describe, expect, it } from "vitest";
import { defaultLevel } from "../../src/cli.js";

const oneShot = {};
const service = { logsAsService: true };

describe("defaultLevel", () => {
  it.each<[string, object, string | undefined, boolean, boolean, string]>([
    ["a one-shot command on a terminal: warn", oneShot, undefined, false, true, "warn"],
    ["the same with the config's info: warn", oneShot, "info", false, true, "warn"],
    ["-v on a terminal: info", oneShot, undefined, true, true, "info"],
    ["-v raises a quieter config to info", oneShot, "error", true, false, "info"],
    ["-v keeps a more verbose config", oneShot, "debug", true, true, "debug"],
    ["a config's debug on a terminal stays debug", oneShot, "debug", false, true, "debug"],
    ["a config's error on a terminal stays error", oneShot, "error", false, true, "error"],
    ["not a terminal: info as configured", oneShot, undefined, false, false, "info"],
    ["the daemon on a terminal: info", service, undefined, false, true, "info"],
    ["the daemon with its config's warn", service, "warn", false, true, "warn"],
  ])("%s", (_name, command, configured, verbose, terminal, expected) => {
    expect(defaultLevel(command, configured, verbose, terminal)).toBe(expected);
  });
});
