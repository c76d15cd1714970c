// A process that applies one snapshot of a company to PostgreSQL through the built store, its
// plan blocking between operations, and says on stdout (one JSON line each) when it asked to
// apply, when each operation was taken, and how the apply ended. Like a sync, it reads the
// company's index first and starts again when the apply finds it stale (another process wrote
// the company meanwhile). Used by postgres-processes.test.ts.
// Usage: node apply-child.mjs <url> <companyId> <startedAt> <label> <ops> <msPerOp> [gateFile]
// With gateFile, the plan stops after its first operation (its transaction open, the company's
// lock held) until that file exists: the test opens the gate once it has seen what it waits for.
import { existsSync } from "node:fs";
import { databaseTarget } from "../../dist/src/config/index.js";
import { openPostgresStore } from "../../dist/src/store/postgres/index.js";

const [url, company, startedAt, label, ops, msPerOp, gateFile] = process.argv.slice(2);
const companyId = Number(company);
const say = (event, more = {}) =>
  process.stdout.write(`${JSON.stringify({ event, label, at: Date.now(), ...more })}\n`);
const pause = new Int32Array(new SharedArrayBuffer(4));

const store = await openPostgresStore(databaseTarget(url));
const runId = await store.runs.start({
  companyId,
  trigger: label,
  startedAt,
  owner: { host: "test", pid: process.pid },
});
let result;
for (let attempt = 1; attempt <= 3; attempt++) {
  const index = await store.snapshots.index(companyId, []);
  say("apply", { generation: index.generation });
  result = await store.snapshots.apply(
    { companyId, runId, startedAt, generation: index.generation, finishedAt: () => new Date().toISOString() },
    (function* () {
      for (let i = 0; i < Number(ops); i++) {
        say("op", { i });
        Atomics.wait(pause, 0, 0, Number(msPerOp)); // a slow plan: the transaction stays open
        while (i === 0 && gateFile && !existsSync(gateFile)) Atomics.wait(pause, 0, 0, 10);
        const id = i + 1;
        const name = `${label}-${id}`;
        yield {
          op: "plan.insert",
          plan: {
            plan: { id, companyId, platform: "desktop", planName: name },
            days: [],
            resolutions: [],
            environments: [],
            scenarios: [],
            alerts: [],
            fetchAppFiles: [],
            mobileApps: [],
            planMobileApps: [],
          },
          rawJson: JSON.stringify({ id, name }),
          hash: name,
        };
      }
      return {
        run: {
          status: "succeeded",
          counts: { fetched: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, rejected: 0 },
          error: null,
        },
        plansListed: true,
      };
    })(),
  );
  if (result.applied || result.reason !== "stale") break;
  say("stale");
}
say("done", { applied: result.applied });
await store.close();
