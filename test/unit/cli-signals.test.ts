import { describe, expect, it } from "vitest";
import { type StopWatchIo, watchStopSignals } from "../../src/commands/signals.js";
import { closestName } from "../../src/text/suggest.js";

/** A fake process: records what is written, exits, and which listeners are installed. */
function fakeIo() {
  const listeners = new Map<string, (s: "SIGINT" | "SIGTERM") => void>();
  const io: StopWatchIo & { written: string[]; exits: number[]; listeners: typeof listeners } = {
    written: [],
    exits: [],
    listeners,
    write: (t) => void io.written.push(t),
    exit: (c) => void io.exits.push(c),
    on: (s, l) => void listeners.set(s, l),
    off: (s, l) => {
      if (listeners.get(s) === l) listeners.delete(s);
    },
  };
  const send = (s: "SIGINT" | "SIGTERM") => listeners.get(s)?.(s);
  return { io, send };
}

describe("watchStopSignals", () => {
  it("acknowledges the first signal with one line and aborts, without exiting", async () => {
    const { io, send } = fakeIo();
    const stop = watchStopSignals("sync", io);
    expect(stop.signal.aborted).toBe(false);
    send("SIGTERM");
    expect(stop.signal.aborted).toBe(true);
    expect(stop.received()).toBe("SIGTERM");
    expect(await stop.stopped).toBe("SIGTERM");
    expect(io.written).toEqual([
      "tas-sync sync: SIGTERM received, stopping (Ctrl+C again to exit at once)\n",
    ]);
    expect(io.exits).toEqual([]);
  });

  it("exits at once on the second signal, with 128 + its number", () => {
    const { io, send } = fakeIo();
    watchStopSignals("push", io);
    send("SIGINT");
    send("SIGINT");
    expect(io.exits).toEqual([130]);
    expect(io.written[1]).toBe("tas-sync push: SIGINT again: exiting at once\n");
  });

  it("removes its handlers on dispose", () => {
    const { io } = fakeIo();
    const stop = watchStopSignals("query", io);
    expect([...io.listeners.keys()].sort()).toEqual(["SIGINT", "SIGTERM"]);
    stop.dispose();
    expect(io.listeners.size).toBe(0);
  });
});

describe("closestName", () => {
  const names = ["sync", "push", "daemon", "status", "push-failures", "retry-failed"];
  it.for([
    ["snyc", "sync"],
    ["stauts", "status"],
    ["push-failure", "push-failures"],
    ["PUSH", "push"],
    ["frobnicate", undefined],
    ["x", undefined],
  ] as const)("suggests %s -> %s", ([given, expected]) => {
    expect(closestName(given, names)).toBe(expected);
  });
});
