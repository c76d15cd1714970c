/**
 * WAL checkpoints on a thread of their own (src/store/sqlite/checkpointer.ts): the committing
 * connection never folds the WAL in; the thread does, soon after; a thread that cannot run
 * brings SQLite's own checkpointing back; closing leaves no WAL and does not end the process
 * early.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Checkpointer } from "../../src/store/sqlite/checkpointer.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { ensureBuilt, ROOT } from "../support/built-cli.js";

let dir: string;
const opened: SqliteStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-ckpt-"));
});
afterEach(async () => {
  for (const s of opened.splice(0)) if (s.sqlite.open) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name: string, backgroundCheckpoints?: boolean): SqliteStore {
  const store = openSqliteStore(
    join(dir, name),
    backgroundCheckpoints === undefined ? {} : { backgroundCheckpoints },
  );
  opened.push(store);
  return store;
}

/** 4 MB in one committed transaction: the WAL holds it until a checkpoint copies it over. */
function writeFourMegabytes(store: SqliteStore): void {
  store.sqlite.exec("CREATE TABLE IF NOT EXISTS scratch (b BLOB)");
  store.sqlite.transaction(() => {
    for (let i = 0; i < 4; i++)
      store.sqlite.prepare("INSERT INTO scratch VALUES (randomblob(1000000))").run();
  })();
}

const size = (path: string) => statSync(path).size;

describe("background checkpoints", () => {
  it("the committing connection leaves the WAL alone; the thread folds it in afterwards", async () => {
    const store = open("bg.db");
    const file = join(dir, "bg.db");
    expect(store.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const before = size(file);
    writeFourMegabytes(store);
    // Right after the commit: nothing copied yet (SQLite's default would have done it already).
    expect(size(file)).toBeLessThan(before + 1_000_000);
    await vi.waitFor(() => expect(size(file)).toBeGreaterThan(before + 4_000_000), {
      timeout: 30_000,
      interval: 20,
    });
    // The data is all there, read through the store's own connection.
    expect(store.sqlite.prepare("SELECT count(*) FROM scratch").pluck().get()).toBe(4);
  });

  it("off (the raw pipeline's way): the committing connection checkpoints, as SQLite does by default", () => {
    const store = open("fg.db", false);
    const file = join(dir, "fg.db");
    expect(store.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    const before = size(file);
    writeFourMegabytes(store);
    expect(size(file)).toBeGreaterThan(before + 4_000_000);
  });

  it("a thread that cannot open the database brings SQLite's own checkpointing back", async () => {
    const sqlite = new Database(join(dir, "own.db"));
    try {
      sqlite.pragma("journal_mode = WAL");
      // The thread opens this path, which does not exist: it fails, and the connection is told so.
      const ckpt = Checkpointer.start(sqlite, join(dir, "missing", "gone.db"));
      expect(ckpt).not.toBeNull();
      expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      await vi.waitFor(() => expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000), {
        timeout: 30_000,
        interval: 20,
      });
      await ckpt?.close();
    } finally {
      sqlite.close();
    }
  });

  it("no thread where a second connection would see another database, nor for read-only stores", async () => {
    const sqlite = new Database(":memory:");
    try {
      expect(Checkpointer.start(sqlite, ":memory:")).toBeNull();
      expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    } finally {
      sqlite.close();
    }
    await open("ro.db").close();
    const ro = openSqliteStore(join(dir, "ro.db"), { readonly: true });
    try {
      expect(ro.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    } finally {
      ro.sqlite.close();
    }
  });
});

describe("closing", () => {
  beforeAll(ensureBuilt, 180_000);

  it("waits for the thread, leaves no WAL behind, and lets the process go on after it", () => {
    const file = join(dir, "close.db");
    // A process with nothing else to do: an unheld thread would let it exit inside close().
    const script = `
      const { openSqliteStore } = await import(${JSON.stringify(join(ROOT, "dist/src/store/sqlite/index.js"))});
      const store = openSqliteStore(${JSON.stringify(file)});
      store.sqlite.exec("CREATE TABLE scratch (b BLOB); INSERT INTO scratch VALUES (randomblob(100000))");
      await store.close();
      console.log("after close");
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(out.trim()).toBe("after close");
    expect(existsSync(`${file}-wal`)).toBe(false);
    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare("SELECT length(b) FROM scratch").pluck().get()).toBe(100000);
    } finally {
      check.close();
    }
  });
});
