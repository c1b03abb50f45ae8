import { describe, expect, it } from "vitest";
import { cleanPreview, refusalText } from "./words";

describe("wording of outcomes", () => {
  it("refusals and previews", () => {
    expect(refusalText("Create schema “Invoice” with 3 fields", "a schema named Invoice exists; use update_schema")).toBe(
      "The model tried to create schema “Invoice” with 3 fields; Docent refused: a schema named Invoice exists; use update_schema",
    );
    expect(cleanPreview("created schema Invoice v1 (srv_01JABCDEF)")).toEqual({ text: "Created schema Invoice v1", ids: ["srv_01JABCDEF"] });
    expect(cleanPreview("3 hits for \"x\"")).toEqual({ text: '3 hits for "x"', ids: [] });
  });
});
