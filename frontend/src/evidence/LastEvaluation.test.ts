import { describe, expect, it } from "vitest";
import type { EvalReport } from "../api/types";
import { weakestFields } from "./LastEvaluation";

const score = (known: number, exact: number, extra = 0) => ({
  known, exact, wrong: known - exact, missing: 0, extra, grounded: exact, accuracy: known ? exact / known : 0, grounded_share: 1,
});

describe("weakestFields", () => {
  it("lists the fields that missed, worst first, and leaves out the perfect ones", () => {
    const r = {
      fields: [
        { field: "total", ...score(10, 10) },
        { field: "date", ...score(10, 5) },
        { field: "number", ...score(10, 9) },
        { field: "notes", ...score(0, 0, 2) },
      ],
    } as unknown as EvalReport;
    expect(weakestFields(r).map((f) => f.field)).toEqual(["notes", "date", "number"]);
  });
});
