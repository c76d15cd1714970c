/** Wrapping a reason for the terminal (text/wrap.ts) and push-failures' wrapped table. */
import { describe, expect, it } from "vitest";
import { wrappedTable } from "../../src/commands/outbox.js";
import type { OutboxRow } from "../../src/push/operations.js";
import { wrapText } from "../../src/text/wrap.js";

describe("wrapText", () => {
  it("keeps every word, in order, within the width, indented", () => {
    const text =
      "Scenario name is invalid or already used in the project (the name is invalid or already used)";
    const lines = wrapText(text, 30, "  ");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(30);
    expect(lines.every((l) => l.startsWith("  "))).toBe(true);
    expect(lines.map((l) => l.trim()).join(" ")).toBe(text);
  });

  it("cuts a word longer than the width into pieces, losing nothing", () => {
    const word = "x".repeat(45);
    expect(wrapText(`a ${word} b`, 20)).toEqual(["a", "x".repeat(20), "x".repeat(20), "xxxxx b"]);
  });

  it("gives no line for an empty text", () => {
    expect(wrapText("  ", 20)).toEqual([]);
  });
});

describe("push-failures' table", () => {
  const row = (key: string, lastError: string | null) =>
    ({
      key,
      companyId: 5251,
      projectId: 52511,
      errorCode: "INVALID_SCENARIO_NAME",
      attempts: 1,
      lastError,
      sourceFile: "seed.ndjson",
      sourceLine: 3,
    }) as OutboxRow;

  it("shows each row's whole reason below it, wrapped to the terminal", () => {
    const reason = `createScenario: HTTP 400 INVALID_SCENARIO_NAME: ${"Scenario name is invalid or already used. ".repeat(5)}`;
    const out = wrappedTable([row("a", reason), row("b", null)], 60).split("\n");
    expect(out[0]).toMatch(/^key +company +project +code +attempts +source$/);
    expect(out[2]).toMatch(/^a +5251 +52511 +INVALID_SCENARIO_NAME +1 +seed\.ndjson:3$/);
    const below = out.slice(3, -1);
    expect(below.length).toBeGreaterThan(1);
    for (const l of below) expect(l.length).toBeLessThanOrEqual(60);
    expect(below.map((l) => l.trim()).join(" ")).toBe(reason.trim());
    expect(out.at(-1)).toMatch(/^b +5251/);
  });

  it("escapes control characters in a reason", () => {
    const out = wrappedTable([row("a", "bad\u001b[2Jname")], 80);
    expect(out).not.toContain("\u001b");
  });
});
