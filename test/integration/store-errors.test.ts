/** A database that cannot be opened: the user's to fix (exit 2), or just not answering (exit 1). */
import { describe, expect, it } from "vitest";
import { StoreError, StoreUnavailableError } from "../../src/store/errors.js";
import { openStore } from "../../src/store/open.js";
import { freePort } from "../support/redis-server.js";

const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

describe("opening a store that cannot be opened", () => {
  it("says a PostgreSQL that does not answer is unavailable (exit 1), naming it with its password masked", async () => {
    const url = `postgres://tas:s3cret-pw@127.0.0.1:${await freePort()}/tas`;
    const err = await openStore(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).exitCode).toBe(1);
    expect((err as Error).message).toMatch(
      /^cannot connect to postgres:\/\/tas:\*\*\*@127\.0\.0\.1:\d+\/tas: .*ECONNREFUSED/,
    );
    expect((err as Error).message).not.toContain("s3cret-pw");
  });

  it("says a refused role is the config's to fix (exit 2)", async () => {
    const url = new URL(PG_URL);
    url.username = "no_such_role_tas";
    const err = await openStore(url.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).not.toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreError).exitCode).toBe(2);
  });

  it("says a SQLite file that cannot be opened is the config's to fix (exit 2)", async () => {
    const err = await openStore("/nonexistent-dir/sub/tas.db").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).exitCode).toBe(2);
    expect((err as Error).message).toContain("cannot open database /nonexistent-dir/sub/tas.db");
  });
});
