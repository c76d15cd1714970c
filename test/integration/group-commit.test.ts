/** GroupCommit on a real SQLite file, watched from a second connection. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/store/sqlite/group-commit.js";

let dir: string;
let writer: Database.Database;
let reader: Database.Database;
let group: GroupCommit;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-group-commit-"));
  const path = join(dir, "t.db");
  writer = new Database(path);
  writer.pragma("journal_mode = WAL");
  writer.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
  reader = new Database(path);
  group = new GroupCommit(writer);
});
afterEach(() => {
  writer.close();
  reader.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert =
  (k: string, v = 1) =>
  () =>
    writer.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v).changes;
const keys = () => reader.prepare("SELECT k FROM t ORDER BY k").pluck().all();

describe("GroupCommit", () => {
  it("commits the writes of one turn together, and resolves only once they are committed", async () => {
    const a = group.run(insert("a"));
    const b = group.run(insert("b"));
    const c = group.run(() => writer.prepare("SELECT count(*) FROM t").pluck().get());
    // Nothing is written before the turn ends.
    expect(keys()).toEqual([]);
    expect(await a).toBe(1);
    // When the first resolves, the whole turn is on disk, seen by another connection.
    expect(keys()).toEqual(["a", "b"]);
    expect(await b).toBe(1);
    // A write sees the ones queued before it in the same transaction.
    expect(await c).toBe(2);
  });

  it("fails a write that throws alone, undoing only what that write did", async () => {
    const ok1 = group.run(insert("a"));
    const bad = group.run(() => {
      insert("half")();
      insert("a")(); // primary key clash
    });
    const ok2 = group.run(insert("b"));
    await expect(bad).rejects.toThrow(/UNIQUE constraint failed/);
    await expect(ok1).resolves.toBe(1);
    await expect(ok2).resolves.toBe(1);
    expect(keys()).toEqual(["a", "b"]);
  });

  it("fails every write of the turn when the commit cannot happen, and works again after", async () => {
    writer.pragma("busy_timeout = 0");
    reader.exec("BEGIN IMMEDIATE"); // another connection holds the write lock
    const a = group.run(insert("a"));
    const b = group.run(insert("b"));
    await expect(a).rejects.toThrow(/locked|busy/i);
    await expect(b).rejects.toThrow(/locked|busy/i);
    reader.exec("ROLLBACK");
    expect(keys()).toEqual([]);
    await expect(group.run(insert("c"))).resolves.toBe(1);
    expect(keys()).toEqual(["c"]);
  });

  it("fails the whole turn, writing nothing, when an error rolls back the transaction", async () => {
    await group.run(insert("first"));
    // Room for one more page: a large row then fails with SQLITE_FULL, which rolls back the
    // whole transaction, not only its savepoint.
    const pages = writer.pragma("page_count", { simple: true }) as number;
    writer.pragma(`max_page_count = ${pages + 1}`);
    const a = group.run(insert("a"));
    const big = group.run(insert("x".repeat(100_000)));
    const c = group.run(insert("c"));
    await expect(big).rejects.toThrow(/full/i);
    await expect(a).rejects.toThrow();
    await expect(c).rejects.toThrow();
    expect(keys()).toEqual(["first"]);
  });

  it("starts a new transaction for writes queued after a flush", async () => {
    await group.run(insert("a"));
    const late = group.run(insert("b"));
    expect(keys()).toEqual(["a"]);
    await late;
    expect(keys()).toEqual(["a", "b"]);
  });
});
