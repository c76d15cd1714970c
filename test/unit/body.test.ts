import { describe, expect, it } from "vitest";
import { parseBody } from "../../src/api/body.js";
import { ResponseFormatError } from "../../src/api/errors.js";
import { scenarioSchema, tokenResponseSchema } from "../../src/wire/schemas.js";

describe("parseBody", () => {
  it("returns the parsed value when the body has the expected shape", () => {
    const t = parseBody('{"access_token":"abc","expires_in":60}', tokenResponseSchema, "token", 200);
    expect(t.access_token).toBe("abc");
    expect(t.expires_in).toBe(60);
  });

  it.each([
    ["HTML from a proxy", "<html>502</html>", "NOT_JSON"],
    ["an empty body", "", "NOT_JSON"],
    ["JSON of the wrong shape", '{"id":"seven"}', "UNEXPECTED_SHAPE"],
  ])("turns %s into a ResponseFormatError", (_what, text, code) => {
    let caught: unknown;
    try {
      parseBody(text, scenarioSchema, "createScenario", 200);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ResponseFormatError);
    expect((caught as ResponseFormatError).code).toBe(code);
    expect((caught as ResponseFormatError).operation).toBe("createScenario");
  });

  it("names the field that did not fit", () => {
    expect(() => parseBody('{"id":"seven"}', scenarioSchema, "createScenario", 200)).toThrow(/id: /);
  });
});
