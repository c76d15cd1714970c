/** The one repair of mobile_app_metadata: the service's `\'` inside a JSON string, and nothing else. */
import { describe, expect, it } from "vitest";
import { parseMobileMetadata, readMetadata, repairMetadata } from "../../src/normalize/mobile-app.js";

describe("repairMetadata", () => {
  it.each([
    ["an apostrophe escaped inside a string", String.raw`{"label":"L\'Appli"}`, `{"label":"L'Appli"}`],
    ["several, in keys and values", String.raw`{"it\'s":"a\'b\'c"}`, `{"it's":"a'b'c"}`],
    [
      "next to other escapes, which stay",
      String.raw`{"a":"\"x\'\\\n\u00e9"}`,
      String.raw`{"a":"\"x'\\\n\u00e9"}`,
    ],
  ])("reads %s", (_what, raw, repaired) => {
    expect(repairMetadata(raw)).toBe(repaired);
    expect(JSON.parse(repairMetadata(raw) ?? "")).toBeTypeOf("object");
  });

  it.each([
    ["text without the quirk", `{"label":"L'Appli"}`],
    ["an escaped backslash before an apostrophe (valid JSON)", String.raw`{"a":"C:\\'x"}`],
    ["a \\' outside any string", String.raw`{"a":1,\'b\':2}`],
  ])("leaves %s as it is", (_what, raw) => {
    expect(repairMetadata(raw)).toBeNull();
  });
});

describe("reading metadata", () => {
  it.each([
    ["\\' outside a string", String.raw`{\'label\':"x"}`],
    ["another invalid escape beside the quirk", String.raw`{"label":"L\'Appli \x41"}`],
    ["an unterminated string with the quirk", String.raw`{"label":"L\'Appli}`],
  ])("keeps %s unparsed, with the error of the text as received", (_what, raw) => {
    const read = readMetadata(raw);
    expect(read.doc).toBeNull();
    expect(read.error).toMatch(/^invalid JSON: /);
    const m = parseMobileMetadata("ANDROID", raw);
    expect(m).toMatchObject({ metadataJson: raw, metadataRepaired: false, appId: null });
    expect(m.metadataError).toBe(read.error);
  });

  it("flags a repaired document and not a valid one", () => {
    expect(readMetadata(String.raw`{"label":"L\'A"}`)).toEqual({
      doc: { label: "L'A" },
      error: null,
      repaired: true,
    });
    expect(readMetadata(`{"label":"L'A"}`)).toEqual({ doc: { label: "L'A" }, error: null, repaired: false });
  });
});
