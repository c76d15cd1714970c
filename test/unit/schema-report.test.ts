/** The observed schema for people (pure): --since, shares, merging companies, the markdown page's gaps and escaping. */
import { describe, expect, it } from "vitest";
import { parseSince } from "../../src/observed/changes.js";
import { code, observedMarkdown } from "../../src/observed/markdown.js";
import { JSON_TYPES, type ObservedPath } from "../../src/observed/port.js";
import { compareEntities, mergeCompanies, percent, presentText } from "../../src/observed/report.js";

const NO_TYPES = Object.fromEntries(JSON_TYPES.map((t) => [t, 0])) as ObservedPath["types"];

function path(companyId: number, entity: string, p: string, over: Partial<ObservedPath> = {}): ObservedPath {
  return {
    companyId,
    entity,
    path: p,
    present: 1,
    types: { ...NO_TYPES, string: 1 },
    minNumber: null,
    maxNumber: null,
    valuesCapped: false,
    values: [],
    firstRunId: 1,
    firstSeenAt: "2025-03-01T00:00:00.000Z",
    lastRunId: 1,
    lastSeenAt: "2025-03-01T00:00:00.000Z",
    ...over,
  };
}

describe("--since", () => {
  it.each([
    ["12", { runId: 12 }],
    ["2025-03-01", { at: "2025-03-01T00:00:00.000Z" }],
    ["2025-03-01T10:30Z", { at: "2025-03-01T10:30:00.000Z" }],
    ["2025-03-01T10:30:00+02:00", { at: "2025-03-01T08:30:00.000Z" }],
    ["2024-02-29", { at: "2024-02-29T00:00:00.000Z" }],
  ])("reads %s", (text, expected) => {
    expect(parseSince(text)).toEqual(expected);
  });

  it.each([
    "0",
    "-3",
    "1.5",
    "yesterday",
    "2025-02-30",
    "2025-13-01",
    "2025-03-01T10:30", // no zone: local time on a server is a guess
    "99999999999999999999",
    "",
  ])("refuses %j", (text) => {
    expect(parseSince(text)).toBeNull();
  });
});

describe("shares and order", () => {
  it.each([
    [1, "100%"],
    [0.996, ">99%"],
    [0.004, "<1%"],
    [0, "0%"],
    [1 / 3, "33%"],
  ])("shows %f as %s", (share, text) => {
    expect(percent(share)).toBe(text);
  });

  it("counts items, not a share, for a path inside a list", () => {
    expect(presentText(path(1, "plan", "scenarios[]", { present: 40 }), 10)).toBe("40");
    expect(presentText(path(1, "plan", "labels", { present: 4 }), 10)).toBe("4 (40%)");
    expect(presentText(path(1, "plan", "labels", { present: 4 }), null)).toBe("4");
  });

  it("orders entities as a plan holds them, metadata by OS, unknown ones last by name", () => {
    const names = [
      "zeta",
      "report_alert",
      "mobile_app_metadata:IOS",
      "plan",
      "alpha",
      "mobile_app_metadata:ANDROID",
    ];
    expect(names.sort(compareEntities)).toEqual([
      "plan",
      "mobile_app_metadata:ANDROID",
      "mobile_app_metadata:IOS",
      "report_alert",
      "alpha",
      "zeta",
    ]);
  });
});

describe("merging companies", () => {
  it("sums counts and values, widens the range, and caps values that add up past the cap", () => {
    const a = path(1, "plan", "screen_shot_type", {
      present: 3,
      types: { ...NO_TYPES, string: 3 },
      values: [
        { value: "YES", count: 2 },
        { value: "NO", count: 1 },
      ],
      minNumber: 2,
      maxNumber: 5,
    });
    const b = path(2, "plan", "screen_shot_type", {
      present: 4,
      types: { ...NO_TYPES, string: 3, null: 1 },
      values: [
        { value: "NO", count: 2 },
        { value: "ONLY_FAILURE", count: 1 },
      ],
      minNumber: 1,
      maxNumber: 4,
      firstSeenAt: "2025-02-01T00:00:00.000Z",
      firstRunId: 9,
    });
    const [m] = mergeCompanies([a, b], 50);
    expect(m).toMatchObject({
      companyId: 0,
      present: 7,
      types: { ...NO_TYPES, string: 6, null: 1 },
      values: [
        { value: "NO", count: 3 },
        { value: "YES", count: 2 },
        { value: "ONLY_FAILURE", count: 1 },
      ],
      minNumber: 1,
      maxNumber: 5,
      firstRunId: 9,
      valuesCapped: false,
    });
    // The inputs are left as they were.
    expect(a.values).toHaveLength(2);
    const [capped] = mergeCompanies([a, b], 2);
    expect(capped).toMatchObject({ valuesCapped: true, values: [] });
  });
});

describe("the markdown page", () => {
  it("puts service text in code spans that neither break a table nor drive a terminal", () => {
    expect(code("YES")).toBe("`YES`");
    expect(code("a`b")).toBe("`` a`b ``");
    expect(code("")).toBe("(empty)");
    expect(code("x\u001b[2Jy")).toBe("`x\\x1b[2Jy`");
    const page = observedMarkdown(
      [
        path(1, "plan", "", { present: 1 }),
        path(1, "plan", "screen_shot_type", { values: [{ value: "A|B\nC", count: 1 }] }),
      ],
      { companyIds: [1], valueCap: 50, at: "2025-03-01T00:00:00.000Z" },
    );
    const line = page.split("\n").find((l) => l.startsWith("| `screen_shot_type` values"));
    expect(line).toBe("| `screen_shot_type` values beyond YES and NO | 2.4 | `A\\|B\\nC` 1 |");
  });

  it("names the fields of a plan alert item with their types, and the share that has each when not all do", () => {
    const page = observedMarkdown(
      [
        path(1, "plan_alert", "", { present: 3 }),
        path(1, "plan_alert", "alert_type", { present: 3 }),
        path(1, "plan_alert", "target", { present: 1, types: { ...NO_TYPES, string: 1, null: 1 } }),
      ],
      { companyIds: [1], valueCap: 50, at: "2025-03-01T00:00:00.000Z" },
    );
    expect(page).toContain(
      "| Fields of a plan alert item | 2.4 | `alert_type` string, `target` string/null (in 33%) |",
    );
  });

  it("answers every gap with 'not observed yet' when nothing was observed, and says how to observe", () => {
    const page = observedMarkdown([], { companyIds: [], valueCap: 50, at: "2025-03-01T00:00:00.000Z" });
    expect(page).toContain("Nothing observed yet: `tas-sync sync` observes every new or changed record.");
    const answers = page
      .split("\n")
      .filter((l) => /^\| .* \| [\d.]+ \| /.test(l))
      .map((l) => l.split(" | ").at(-1));
    expect(answers).toHaveLength(10);
    for (const a of answers) expect(a).toMatch(/^not observed yet( \(.*\))? \|$/);
  });
});
