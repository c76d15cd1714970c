import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: "info", pretty: false, destination: stream });
  return { logger, lines };
}

describe("createLogger redaction", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["token", { token: "tok-SECRET-1" }, "tok-SECRET-1"],
    ["password", { password: "pw-SECRET-2" }, "pw-SECRET-2"],
    ["clientSecret", { clientSecret: "cs-SECRET-3" }, "cs-SECRET-3"],
    ["authorization", { authorization: "Bearer az-SECRET-4" }, "az-SECRET-4"],
    ["headers.authorization", { headers: { authorization: "Bearer hd-SECRET-5" } }, "hd-SECRET-5"],
    [
      "req.headers.authorization",
      { req: { headers: { authorization: "Basic rq-SECRET-6" } } },
      "rq-SECRET-6",
    ],
    ["access_token", { access_token: "at-SECRET-7" }, "at-SECRET-7"],
    ["refresh_token", { refresh_token: "rt-SECRET-8" }, "rt-SECRET-8"],
    ["auth.password", { auth: { password: "nested-SECRET-9", username: "bob" } }, "nested-SECRET-9"],
    ["cfg.auth.password (two levels)", { cfg: { auth: { password: "deep-SECRET-10" } } }, "deep-SECRET-10"],
    ["company.auth.token (two levels)", { company: { auth: { token: "deep-SECRET-11" } } }, "deep-SECRET-11"],
  ])("redacts %s", (_path, fields, secret) => {
    const { logger, lines } = capture();
    logger.info(fields, "calling the service");
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    expect(line).not.toContain(secret);
    expect(line).toContain("[redacted]");
    expect(JSON.parse(line)).toMatchObject({ msg: "calling the service", level: 30 });
  });

  it("keeps the fields that are not secrets", () => {
    const { logger, lines } = capture();
    logger.info({ companyId: 5251, auth: { password: "x-SECRET", username: "bob" } }, "hello");
    const entry = JSON.parse(lines[0] as string);
    expect(entry).toMatchObject({ companyId: 5251, auth: { password: "[redacted]", username: "bob" } });
  });

  it("redacts secrets bound on a child logger", () => {
    const { logger, lines } = capture();
    logger.child({ token: "child-SECRET" }).warn("from the child");
    expect(lines[0]).toContain("from the child");
    expect(lines[0]).not.toContain("child-SECRET");
  });

  it("writes nothing below the level", () => {
    const { logger, lines } = capture();
    logger.debug({ token: "dbg" }, "quiet");
    expect(lines).toEqual([]);
  });
});
