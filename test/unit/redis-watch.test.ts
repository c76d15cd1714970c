/** A Redis outage in the log: once when lost, at most once a minute while it lasts, once when back. */
import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import type { Logger } from "../../src/log.js";
import { RedisWatch } from "../../src/queue/redis-watch.js";

function setup() {
  let now = 0;
  const lines: { level: string; msg: string }[] = [];
  const log = (level: string) => (_fields: unknown, msg: string) => lines.push({ level, msg });
  const logger = { info: log("info"), warn: log("warn"), error: log("error") } as unknown as Logger;
  const watch = new RedisWatch(logger, "redis://127.0.0.1:6379", () => now);
  const conn = () =>
    Object.assign(new EventEmitter(), { status: "ready" }) as unknown as Redis & EventEmitter;
  return { lines, watch, conn, tick: (ms: number) => (now += ms) };
}

describe("RedisWatch", () => {
  it("logs the loss once, reminds once a minute, and says when Redis is back and after how long", () => {
    const { lines, watch, conn, tick } = setup();
    const a = watch.watch(conn());
    const b = watch.watch(conn());
    const back = vi.fn();
    watch.onReconnect(back);
    a.emit("error", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    b.emit("error", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    for (let i = 0; i < 100; i++) {
      tick(100);
      watch.noteError("Connection is closed.");
    }
    expect(watch.up).toBe(false);
    expect(lines).toEqual([{ level: "error", msg: "redis connection lost; retrying" }]);
    tick(50_000);
    watch.noteError("Connection is closed.");
    expect(lines.at(-1)).toEqual({ level: "error", msg: "redis still unreachable after 60 s" });
    tick(1000);
    a.emit("ready");
    expect(back).not.toHaveBeenCalled(); // b is still down
    tick(1200);
    b.emit("ready");
    expect(lines.at(-1)).toEqual({ level: "info", msg: "redis reconnected after 62.2 s" });
    expect(back).toHaveBeenCalledTimes(1);
    expect(watch.up).toBe(true);
    expect(lines).toHaveLength(3);
  });

  it("logs an error while Redis is up as it comes", () => {
    const { lines, watch } = setup();
    watch.noteError("ERR something odd");
    expect(lines).toEqual([{ level: "warn", msg: "redis error" }]);
  });
});

describe("RedisWatch and commands cut by their connection", () => {
  it("does not log a line per command cut while Redis seems up (the connection's events tell)", () => {
    let now = 0;
    const lines: string[] = [];
    const log = (level: string) => (_f: unknown, msg: string) => lines.push(`${level} ${msg}`);
    const logger = {
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      debug: log("debug"),
    } as unknown as Logger;
    const watch = new RedisWatch(logger, "redis://x", () => now);
    for (let i = 0; i < 20; i++) {
      now += 10;
      watch.noteError("Connection is closed.");
    }
    expect(lines.filter((l) => !l.startsWith("debug"))).toEqual([]);
  });
});
