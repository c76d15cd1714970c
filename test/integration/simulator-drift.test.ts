/**
 * The simulator's drift mode over real HTTP: after the first plan list served to a company its
 * plans change (a new field, a new enum value, a type change the reader accepts), seeded and
 * per company; armed by the option, `simulate --drift` or PUT __admin/drift, made at once by
 * POST __admin/companies/{id}/drift.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runSimulateCommand } from "../../src/simulator/command.js";
import { DRIFT_SCREENSHOT } from "../../src/simulator/drift.js";
import { type RunningSimulator, type SimulatorOptions, startSimulator } from "../../src/simulator/server.js";

type Plan = Record<string, unknown> & { id: number };
const started: RunningSimulator[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

async function simulator(opts: SimulatorOptions): Promise<RunningSimulator> {
  const sim = await startSimulator({ port: 0, reports: 0, ...opts });
  started.push(sim);
  return sim;
}

async function planList(sim: RunningSimulator, company = 0): Promise<Plan[]> {
  const c = sim.companies[company];
  if (!c) throw new Error(`no company ${company}`);
  const res = await fetch(`${sim.baseUrl}/api/plans`, {
    headers: { authorization: `Bearer ${c.staticToken}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Plan[];
}

async function admin(sim: RunningSimulator, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.baseUrl}/__admin/${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The ANDROID app's metadata of a plan, parsed; undefined when none or it does not parse. */
function androidMeta(plan: Plan): Record<string, unknown> | undefined {
  const app = plan.selected_android_mobile_app as { mobile_app_metadata?: string } | undefined;
  try {
    return app?.mobile_app_metadata
      ? (JSON.parse(app.mobile_app_metadata) as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** How the second list differs from the first: the plans that changed and how. */
function diff(before: Plan[], after: Plan[]) {
  expect(after.map((p) => p.id)).toEqual(before.map((p) => p.id));
  const changed = after.filter((p, i) => JSON.stringify(p) !== JSON.stringify(before[i]));
  return {
    changed: changed.map((p) => p.id),
    labels: after.filter((p) => p.labels !== undefined).map((p) => p.id),
    screenshot: after.filter((p) => p.screen_shot_type === DRIFT_SCREENSHOT).map((p) => p.id),
    versionCode: after.filter((p) => typeof androidMeta(p)?.versionCode === "string").map((p) => p.id),
    parallelLimit: after.filter((p) => typeof p.plan_parallel_test_limit === "string").map((p) => p.id),
  };
}

describe("the simulator's drift", () => {
  it("serves the first list as generated, then a drifted one: labels, ON_FAILURE_ONLY, versionCode as a string", async () => {
    const sim = await simulator({ plans: 30, companies: 2, seed: 7, drift: true });
    const first = await planList(sim);
    expect(first.some((p) => p.labels !== undefined || p.screen_shot_type === DRIFT_SCREENSHOT)).toBe(false);
    const numeric = first.filter((p) => typeof androidMeta(p)?.versionCode === "number").map((p) => p.id);
    expect(numeric.length).toBeGreaterThan(0);

    const second = await planList(sim);
    const d = diff(first, second);
    const [firstPlan] = second;
    // The first plan always carries both; the others by the seeded dice.
    expect(firstPlan?.labels).toEqual(["nightly"]);
    expect(firstPlan?.screen_shot_type).toBe(DRIFT_SCREENSHOT);
    expect(d.labels.length).toBeGreaterThan(1);
    expect(d.labels.length).toBeLessThan(30);
    expect(d.screenshot.length).toBeGreaterThan(1);
    expect(d.screenshot.length).toBeLessThan(30);
    // Every ANDROID app's versionCode, and only that: the same digits, now a string.
    expect(d.versionCode).toEqual(numeric);
    for (const p of second.filter((x) => d.versionCode.includes(x.id))) {
      const before = first.find((x) => x.id === p.id);
      expect(androidMeta(p)?.versionCode).toBe(String(before && androidMeta(before)?.versionCode));
    }
    // Every tenth plan from the second: plan_parallel_test_limit as a string (a type the reader refuses).
    expect(d.parallelLimit).toEqual([second[1]?.id, second[11]?.id, second[21]?.id]);
    for (const p of second.filter((x) => d.parallelLimit.includes(x.id)))
      expect(p.plan_parallel_test_limit).toBe(
        String(first.find((x) => x.id === p.id)?.plan_parallel_test_limit),
      );
    // A plan none of the four touched keeps its bytes.
    expect(new Set(d.changed)).toEqual(
      new Set([...d.labels, ...d.screenshot, ...d.versionCode, ...d.parallelLimit]),
    );
    expect(d.changed.length).toBeLessThan(30);
    // Once: the third list is the second.
    expect(await planList(sim)).toEqual(second);
    expect((await admin(sim, "GET", "drift")).json).toEqual({
      armed: true,
      drifted: {
        [String(sim.companies[0]?.id)]: {
          labels: d.labels.length,
          screenShotType: d.screenshot.length,
          versionCode: d.versionCode.length,
          parallelLimit: d.parallelLimit.length,
        },
      },
    });
    // The other company drifts after its own first list, not before.
    const other = await planList(sim, 1);
    expect(other.some((p) => p.labels !== undefined)).toBe(false);
    expect((await planList(sim, 1)).some((p) => p.labels !== undefined)).toBe(true);
  });

  it("drifts the same plans for the same seed, and others for another seed", async () => {
    const drifted = async (seed: number) => {
      const sim = await simulator({ plans: 30, companies: 1, seed, drift: true });
      await planList(sim);
      return planList(sim);
    };
    const a = await drifted(3);
    expect(await drifted(3)).toEqual(a);
    const labelled = (list: Plan[]) => list.filter((p) => p.labels).map((p) => p.id % 1000);
    expect(labelled(await drifted(4))).not.toEqual(labelled(a));
  });

  it("is off by default; PUT __admin/drift arms it for the next list; POST drifts a company at once", async () => {
    const sim = await simulator({ plans: 9, companies: 2, seed: 1 });
    const original = await planList(sim);
    expect(await planList(sim)).toEqual(original);
    expect((await admin(sim, "PUT", "drift", { armed: true })).json).toEqual({ armed: true, drifted: {} });
    expect(await planList(sim)).toEqual(original);
    expect((await planList(sim))[0]?.labels).toEqual(["nightly"]);

    const [, second] = sim.companies;
    const now = await admin(sim, "POST", `companies/${second?.id}/drift`);
    expect(now.status).toBe(200);
    expect(now.json).toMatchObject({ companyId: second?.id, labels: expect.any(Number) });
    expect((await planList(sim, 1))[0]?.screen_shot_type).toBe(DRIFT_SCREENSHOT);

    expect((await admin(sim, "POST", "companies/1/drift")).status).toBe(404);
    for (const body of [{ armed: "yes" }, {}, { armed: true, extra: 1 }, [true]])
      expect((await admin(sim, "PUT", "drift", body)).status).toBe(400);
  });

  it("simulate --drift says so, in text and in the --json listening line", async () => {
    const out: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const io = { out: (t: string) => void out.push(t), err: () => {}, stop: stopped };
    const run = runSimulateCommand(["--json", "--drift", "--port", "0", "--plans", "3"], io);
    await expect.poll(() => out.length).toBe(1);
    expect(JSON.parse(out[0] ?? "")).toMatchObject({ event: "listening", drift: true });
    stop();
    expect(await run).toBe(0);

    const text: string[] = [];
    let stopText!: () => void;
    const textRun = runSimulateCommand(["--drift", "--port", "0", "--plans", "3"], {
      out: (t) => void text.push(t),
      err: () => {},
      stop: new Promise<void>((resolve) => {
        stopText = resolve;
      }),
    });
    await expect.poll(() => text.length).toBe(1);
    expect(text[0]).toContain("  drift:      armed: each company's plans change after its first plan list");
    stopText();
    expect(await textRun).toBe(0);
  });
});
