import { describe, expect, it } from "vitest";
import { checkArgsJSON } from "./ProposalEditor";

const schema = JSON.stringify({ response_format: { type: "json_schema", json_schema: { name: "x", strict: true, schema: { type: "object", properties: {}, required: [], additionalProperties: false } } } });

describe("edited JSON arguments", () => {
  it("need a name when the summary's ops say the call creates", () => {
    expect(checkArgsJSON(["create"], "schema", schema).problems).toEqual(["A schema needs a name."]);
    expect(checkArgsJSON(["update"], "schema", schema).problems).toEqual([]);
    // The tool's name says nothing: a call without declared ops creates nothing.
    expect(checkArgsJSON(undefined, "schema", schema).problems).toEqual([]);
  });
});
