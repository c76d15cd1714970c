import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { runSimulateCommand } from "../../src/simulator/command.js";
import { readListeningEvent } from "../../src/simulator/command-output.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

describe("tas-sync simulate", () => {
  it("--help explains every flag", async () => {
    const c = capture();
    expect(await runSimulateCommand(["--help"], c.io)).toBe(0);
    const help = c.out.join("");
    for (const flag of [
      "--port",
      "--companies",
      "--plans",
      "--reports",
      "--seed",
      "--error-rate",
      "--rate-limit-rate",
      "--retry-after",
      "--latency-ms",
      "--drop-after-commit-rate",
      "--drop-half-rate",
      "--plan-list-delay-ms",
      "--plan-list-delay-once-ms",
      "--slow-rate",
      "--slow-ms",
      "--rate-limit-burst",
      "--token-ttl",
      "--drift",
      "--json",
      "--help",
    ]) {
      expect(help).toMatch(new RegExp(`${flag} .*\\S`));
    }
  });

  it("--json prints one listening line with logins and a working tas-sync config", async () => {
    const c = capture();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const run = runSimulateCommand(["--json", "--port", "0", "--plans", "4", "--companies", "3"], {
      ...c.io,
      stop: stopped,
    });
    await expect.poll(() => c.out.length).toBe(1);
    const line = c.out[0]!;
    expect(line.endsWith("\n") && line.indexOf("\n") === line.length - 1).toBe(true);
    const event = JSON.parse(line) as {
      event: string;
      base_url: string;
      companies: { id: number; static_token: string; project_ids: number[] }[];
      config: { baseUrl: string; auth: { username: string }; companies: { id: number; auth?: unknown }[] };
    };
    expect(event.event).toBe("listening");
    expect(event.companies.map((x) => x.id)).toEqual([5251, 5252, 5253]);
    expect(event.companies[2]?.static_token).toBe("sim-token-5253");
    expect(Object.keys(event).filter((k) => k !== "config" && /[A-Z]/.test(k))).toEqual([]);
    // What benchmarks and the chaos runner read back from the line.
    const read = readListeningEvent(line);
    expect(read.baseUrl).toBe(event.base_url);
    expect(read.companies[2]).toMatchObject({ id: 5253, staticToken: "sim-token-5253" });
    expect(read.companies[0]?.projectIds).toEqual(event.companies[0]?.project_ids);
    expect(event.config.auth.username).toBe("user5251");
    expect(event.config.companies[0]?.auth).toBeUndefined();
    expect(event.config.companies[1]?.auth).toMatchObject({ username: "user5252", password: "pass-5252" });
    expect(() => parseConfig(event.config, "(simulate --json)", {})).not.toThrow();
    const res = await fetch(`${event.base_url}/api/plans`, {
      headers: { authorization: "Bearer sim-token-5253" },
    });
    expect((await res.json()) as unknown[]).toHaveLength(4);
    stop();
    expect(await run).toBe(0);
    await expect(fetch(`${event.base_url}/api/plans`)).rejects.toThrow();
  });

  it("prints the human summary with the config JSON", async () => {
    const c = capture();
    const run = runSimulateCommand(["--plans", "2"], { ...c.io, stop: Promise.resolve() });
    expect(await run).toBe(0);
    const text = c.out.join("");
    expect(text).toContain("sim-token-5251");
    expect(text).toContain("user5252 / pass-5252");
    expect(text).toContain('"clientId": "tas-sync-sim"');
  });

  it("passes the fault flags to the simulator", async () => {
    const c = capture();
    const argv = [
      "--json",
      "--plans",
      "1",
      "--drop-half-rate",
      "0.25",
      "--plan-list-delay-ms",
      "10",
      "--plan-list-delay-once-ms",
      "20",
      "--slow-rate",
      "0.5",
      "--slow-ms",
      "30",
      "--rate-limit-burst",
      "4",
    ];
    expect(await runSimulateCommand(argv, { ...c.io, stop: Promise.resolve() })).toBe(0);
    const event = JSON.parse(c.out[0] ?? "{}") as { faults: Record<string, number> };
    expect(event.faults).toMatchObject({
      drop_half_rate: 0.25,
      plan_list_delay_ms: 10,
      plan_list_delay_once_ms: 20,
      slow_rate: 0.5,
      slow_ms: 30,
      rate_limit_burst: 4,
    });
  });

  it.each([
    [["--nope"]],
    [["--plans", "many"]],
    [["--error-rate", "1.5"]],
    [["--companies", "0"]],
    [["--slow-rate", "2"]],
    [["--rate-limit-burst", "1.5"]],
    [["--plan-list-delay-ms", "-1"]],
  ])("rejects %j with exit code 2", async (argv) => {
    const c = capture();
    expect(await runSimulateCommand(argv, c.io)).toBe(2);
    expect(c.err.join("")).toContain("tas-sync simulate:");
  });
});
