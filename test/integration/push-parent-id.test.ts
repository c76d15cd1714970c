/**
 * A parent whose create answer is lost ends "exists" without an id: its children wait (blocked,
 * PARENT_ID_UNKNOWN), push-failures --blocked and status show them, and set-parent-id lets
 * them be created, under the right parent, exactly once.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { storeKinds } from "../support/stores.js";
import { notOnce, type PushHarness, seedRow, startPushHarness } from "./push-harness.js";

describe.each(storeKinds())("a parent whose create answer was lost, on $name", (kind) => {
  let h: PushHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  afterAll(() => kind.cleanup());

  it("keeps its children waiting until set-parent-id gives its id, then creates them under it", async () => {
    // The service refuses a repeated name (API-FACTS): that is how a lost answer ends "exists".
    h = await startPushHarness(kind, { sim: { faults: { dropAfterCommitRate: 1, namesNotUnique: 0 } } });
    const t = h;
    const file = t.seed("family.ndjson", [
      seedRow("Suite"),
      seedRow("Case A", { parent_key: "Suite" }),
      seedRow("Case B", { parent_key: "Suite" }),
    ]);
    const first = await t.cli(["push", file, "--wait"]);
    expect(first.code).toBe(1);
    expect(first.out).toContain("created 0, already existed 1, failed 0, waiting for a parent's id 2");
    expect(await t.request("Suite")).toMatchObject({ status: "exists", scenario_id: null });
    expect(await t.request("Case A")).toMatchObject({ status: "blocked", error_code: "PARENT_ID_UNKNOWN" });

    const listed = await t.cli(["push-failures", "--blocked", "--json"]);
    const blocked = listed.out.map((l) => JSON.parse(l) as { key: string; last_error: string });
    expect(blocked.map((b) => b.key).sort()).toEqual(["Case A", "Case B"]);
    expect(blocked[0]?.last_error).toContain("tas-sync set-parent-id Suite <id>");
    const status = JSON.parse((await t.cli(["status", "--json"])).out.join("\n")) as {
      outbox: { blocked: number };
    };
    expect(status.outbox.blocked).toBe(2);

    // The user looks the suite up in the service and gives its id.
    const suite = (await t.scenarios()).find((s) => s.scenario_name === "Suite");
    if (!suite) throw new Error("the service has no Suite");
    const wrong = await t.cli(["set-parent-id", "Case A", String(suite.id)]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("give its parent's key, Suite");
    const set = await t.cli(["set-parent-id", "Suite", String(suite.id)]);
    expect(set.out).toEqual([`row Suite has scenario id ${suite.id}; 2 waiting row(s) queued`]);
    expect(set.code).toBe(0);

    await t.setFaults({ dropAfterCommitRate: 0 });
    const second = await t.cli(["push", file, "--wait"]);
    expect(second.code).toBe(0);
    expect(notOnce(await t.createdPerKey(), ["Suite", "Case A", "Case B"])).toEqual([]);
    const all = await t.scenarios();
    expect(
      all
        .filter((s) => s.parent_id === suite.id)
        .map((s) => s.scenario_name)
        .sort(),
    ).toEqual(["Case A", "Case B"]);
    expect(await t.request("Case A")).toMatchObject({ status: "created" });
  }, 60_000);

  it("blocks the rows below a blocked child too, so push --wait ends, and creates the chain later", async () => {
    // The service refuses a repeated name (API-FACTS): that is how a lost answer ends "exists".
    h = await startPushHarness(kind, { sim: { faults: { dropAfterCommitRate: 1, namesNotUnique: 0 } } });
    const t = h;
    const file = t.seed("chain.ndjson", [
      seedRow("Suite"),
      seedRow("Group", { parent_key: "Suite" }),
      seedRow("Leaf", { parent_key: "Group" }),
      seedRow("Leaf 2", { parent_key: "Leaf" }),
    ]);
    // Before the fix the grandchildren stayed pending below a blocked row: this never ended.
    const first = await t.cli(["push", file, "--wait"]);
    expect(first.out).toContain("created 0, already existed 1, failed 0, waiting for a parent's id 3");
    expect(await t.request("Group")).toMatchObject({ status: "blocked", error_code: "PARENT_ID_UNKNOWN" });
    const leaf = await t.request("Leaf 2");
    expect(leaf).toMatchObject({ status: "blocked", error_code: "PARENT_ID_UNKNOWN" });
    expect(String(leaf?.last_error)).toContain("tas-sync set-parent-id Suite <id>");

    const suite = (await t.scenarios()).find((s) => s.scenario_name === "Suite");
    if (!suite) throw new Error("the service has no Suite");
    expect((await t.cli(["set-parent-id", "Suite", String(suite.id)])).code).toBe(0);
    await t.setFaults({ dropAfterCommitRate: 0 });
    const second = await t.cli(["push", file, "--wait"]);
    expect(second.code).toBe(0);
    expect(notOnce(await t.createdPerKey(), ["Suite", "Group", "Leaf", "Leaf 2"])).toEqual([]);
    const all = await t.scenarios();
    const byName = new Map(all.map((s) => [s.scenario_name, s]));
    expect(byName.get("Group")?.parent_id).toBe(suite.id);
    expect(byName.get("Leaf")?.parent_id).toBe(byName.get("Group")?.id);
    expect(byName.get("Leaf 2")?.parent_id).toBe(byName.get("Leaf")?.id);
  }, 60_000);
});
