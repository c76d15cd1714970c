/** The one-shot sync's progress: redrawn in place on a terminal, a log line every 10 s otherwise. */
import { describe, expect, it } from "vitest";
import { SyncProgressView } from "../../src/commands/sync-progress.js";
import type { Logger } from "../../src/log.js";

function stream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream,
  };
}

function logger() {
  const lines: { fields: unknown; msg: string }[] = [];
  return {
    lines,
    logger: { info: (fields: unknown, msg: string) => lines.push({ fields, msg }) } as unknown as Logger,
  };
}

describe("SyncProgressView", () => {
  it("draws one line per company on a terminal, with records, MB and rate, and redraws in place", () => {
    let now = 0;
    const out = stream(true);
    const view = new SyncProgressView(out.stream, logger().logger, () => now);
    view.update({ companyId: 1, phase: "plans", records: 0, bytes: 0 });
    now = 1000;
    view.update({ companyId: 1, phase: "plans", records: 5000, bytes: 3 * 1_048_576 });
    now = 1100; // within 200 ms of the last drawing: not drawn
    view.update({ companyId: 2, phase: "plans", records: 10, bytes: 10 });
    now = 1300;
    view.update({ companyId: 2, phase: "plans", records: 20, bytes: 20 });
    expect(out.written).toHaveLength(2);
    expect(out.written[0]).toBe("company 1: plans 5000 records, 3 MB, 5000/s\n");
    // The next drawing moves up over the previous one (one line) and clears it first.
    expect(out.written[1]?.startsWith("\x1b[1F\x1b[J")).toBe(true);
    expect(out.written[1]).toContain("company 1: plans 5000 records");
    expect(out.written[1]).toContain("company 2: plans 20 records");
    view.done(1);
    expect(out.written.at(-1)).toBe("\x1b[2F\x1b[Jcompany 2: plans 20 records, 0 MB, 100/s\n");
  });

  it("logs at most one line per company every 10 s when stderr is not a terminal", () => {
    let now = 0;
    const log = logger();
    const view = new SyncProgressView(stream(false).stream, log.logger, () => now);
    view.update({ companyId: 1, phase: "plans", records: 1, bytes: 1 });
    expect(log.lines).toHaveLength(0);
    for (now = 1000; now < 10_000; now += 1000)
      view.update({ companyId: 1, phase: "plans", records: now, bytes: now });
    expect(log.lines).toHaveLength(0);
    now = 10_000;
    view.update({ companyId: 1, phase: "plans", records: 20_000, bytes: 2_097_152 });
    expect(log.lines).toEqual([
      {
        msg: "sync progress",
        fields: { companyId: 1, phase: "plans", records: 20_000, mb: 2, perSecond: 2000 },
      },
    ]);
  });
});
