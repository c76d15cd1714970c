/** Errors that are the user's to fix share one base (UserError): the CLI prints one line and exits with its code. */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.js";
import { RedisUnavailableError } from "../../src/queue/connection.js";
import { StoreError, StoreUnavailableError } from "../../src/store/errors.js";
import { QueryError, QueryReadOnlyError } from "../../src/store/port.js";

describe("errors that are the user's to fix", () => {
  const cases: [string, UserError, number][] = [
    ["an unreachable Redis", new RedisUnavailableError("cannot reach Redis"), 1],
    ["an unreachable database", new StoreUnavailableError("cannot connect"), 1],
    ["a database that cannot be opened", new StoreError("cannot open"), 2],
    ["bad SQL given to query", new QueryError("query failed"), 2],
    ["a query that writes", new QueryReadOnlyError("read-only"), 2],
  ];
  it.each(cases)("%s is a UserError with its exit code", (_what, err, code) => {
    expect(err).toBeInstanceOf(UserError);
    expect(err.exitCode).toBe(code);
  });
});
