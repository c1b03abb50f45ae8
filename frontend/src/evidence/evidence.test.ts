import { describe, expect, it } from "vitest";
import type { EvidenceMap } from "../api/types";
import {
  cellEvidence,
  evidenceOf,
  evidenceTitle,
  fieldHref,
  findQuote,
  highlightRect,
  leavesOf,
  markOf,
  needsReview,
  orderForReview,
  reviewList,
  rowNeedsReview,
  targetOf,
  type Rect,
} from "./evidence";

const value = {
  invoice_number: "A-100",
  total: 250,
  paid: false,
  note: null,
  seller: { name: "ACME GmbH", vat: "DE123" },
  lines: [
    { description: "Item 1", amount: 125 },
    { description: "Item 2", amount: 125 },
  ],
};

const evidence: EvidenceMap = {
  invoice_number: { status: "grounded", page: 1, quote: "A-100", bbox: [0.6, 0.05, 0.8, 0.08] },
  total: { status: "ambiguous", candidates: [
    { page: 2, quote: "250.00", bbox: [0.7, 0.9, 0.8, 0.92] },
    { page: 1, quote: "250", bbox: [0.1, 0.5, 0.2, 0.52] },
  ] },
  "seller.name": { status: "grounded", page: 1, quote: "ACME GmbH", bbox: [0.1, 0.02, 0.3, 0.05] },
  "seller.vat": { status: "ungrounded" },
  "lines.0.description": { status: "edited" },
  "lines.0.amount": { status: "grounded", page: 1, quote: "125.00", bbox: [0.7, 0.3, 0.8, 0.32] },
  "lines.1.description": { status: "ungrounded" },
  "lines.1.amount": { status: "ambiguous", page: 1, quote: "125.00", bbox: [0.7, 0.35, 0.8, 0.37], candidates: [{ page: 1, quote: "125.00" }] },
};

describe("marks", () => {
  it("gives each status its symbol, words and meaning", () => {
    expect(markOf("grounded")).toMatchObject({ symbol: "✓", text: "" });
    expect(markOf("ambiguous")).toMatchObject({ symbol: "?" });
    expect(markOf("ungrounded")).toMatchObject({ text: "not found in document", label: "not found in the document" });
    expect(markOf("edited")).toMatchObject({ text: "edited by you" });
    expect(needsReview("ungrounded")).toBe(true);
    expect(needsReview("ambiguous")).toBe(true);
    expect(needsReview("grounded")).toBe(false);
    expect(needsReview("edited")).toBe(false);
    expect(needsReview(undefined)).toBe(false);
  });

  it("says in the tooltip where the value stands", () => {
    expect(evidenceTitle(evidence.invoice_number)).toBe("Found in the document, page 1: “A-100”");
    expect(evidenceTitle(evidence["seller.vat"])).toBe("Not found in the document");
    expect(evidenceTitle(evidence.total)).toBe("Found in 2 places of the document; the likeliest is on page 2: “250.00”");
    expect(evidenceTitle(evidence["lines.0.description"])).toBe("Edited by you");
  });
});

describe("evidenceOf", () => {
  it("reads what is well formed and nothing else", () => {
    expect(evidenceOf({})).toEqual({});
    expect(evidenceOf({ evidence: null })).toEqual({});
    expect(evidenceOf(null)).toEqual({});
    const got = evidenceOf({
      evidence: {
        a: { status: "grounded", page: 2, quote: "x", bbox: [0, 0, 1, 1] },
        b: { status: "nonsense" },
        c: "grounded",
        d: { status: "ambiguous", bbox: [0, 0, 1], candidates: [{ page: 1, quote: "q", bbox: [0, 0, 0.5, 0.5] }, { quote: "no page" }] },
      },
    });
    expect(got).toEqual({
      a: { status: "grounded", page: 2, quote: "x", bbox: [0, 0, 1, 1] },
      d: { status: "ambiguous", candidates: [{ page: 1, quote: "q", bbox: [0, 0, 0.5, 0.5] }] },
    });
  });
});

describe("targets", () => {
  it("goes to the field's place, a chosen candidate's, or the best candidate's; nowhere when not found", () => {
    expect(targetOf(evidence.invoice_number)).toEqual({ page: 1, quote: "A-100", bbox: [0.6, 0.05, 0.8, 0.08] });
    expect(targetOf(evidence.total)).toEqual({ page: 2, quote: "250.00", bbox: [0.7, 0.9, 0.8, 0.92] });
    expect(targetOf(evidence.total, 1)).toEqual({ page: 1, quote: "250", bbox: [0.1, 0.5, 0.2, 0.52] });
    expect(targetOf(evidence["seller.vat"])).toBeNull();
    expect(targetOf(evidence["lines.0.description"])).toBeNull();
    expect(targetOf(undefined)).toBeNull();
  });

  it("links to the document with the field selected", () => {
    expect(fieldHref("doc_1", "lines.0.amount", 2)).toBe("#/documents/doc_1?page=2&field=lines.0.amount");
    expect(fieldHref("doc_1", "seller.vat")).toBe("#/documents/doc_1?field=seller.vat");
  });
});

describe("review order", () => {
  it("lists the leaves in the value's order", () => {
    expect(leavesOf(value).map((l) => l.path)).toEqual([
      "invoice_number",
      "total",
      "paid",
      "note",
      "seller.name",
      "seller.vat",
      "lines.0.description",
      "lines.0.amount",
      "lines.1.description",
      "lines.1.amount",
    ]);
  });

  it("puts ungrounded fields first, then ambiguous ones, then the rest in document order", () => {
    const order = orderForReview(leavesOf(value), evidence).map((x) => x.path);
    expect(order).toEqual([
      // ungrounded: no place, in the value's order
      "seller.vat",
      "lines.1.description",
      // ambiguous: page 1 (y 0.35) before page 2
      "lines.1.amount",
      "total",
      // the rest: page 1 top to bottom, then the edited field with no place
      "seller.name",
      "invoice_number",
      "lines.0.amount",
      "lines.0.description",
    ]);
  });

  it("keeps left to right order on one line and leaves out fields without evidence", () => {
    const ev: EvidenceMap = {
      b: { status: "grounded", page: 1, bbox: [0.5, 0.1, 0.6, 0.2] },
      a: { status: "grounded", page: 1, bbox: [0.1, 0.1, 0.2, 0.2] },
    };
    expect(orderForReview(leavesOf({ b: 1, a: 2, c: 3 }), ev).map((x) => x.path)).toEqual(["a", "b"]);
  });

  it("lists only what needs review, with its value", () => {
    expect(reviewList(value, evidence).map((x) => [x.path, x.value, x.evidence.status])).toEqual([
      ["seller.vat", "DE123", "ungrounded"],
      ["lines.1.description", "Item 2", "ungrounded"],
      ["lines.1.amount", 125, "ambiguous"],
      ["total", 250, "ambiguous"],
    ]);
    expect(reviewList(value, {})).toEqual([]);
  });

  it("tells whether a row needs review", () => {
    expect(rowNeedsReview({ evidence })).toBe(true);
    expect(rowNeedsReview({ evidence: { total: { status: "grounded" } } })).toBe(false);
    expect(rowNeedsReview({})).toBe(false);
  });

  it("shows in a cell the evidence under its column that most needs a look", () => {
    expect(cellEvidence(evidence, "lines")).toEqual({ path: "lines.1.description", evidence: evidence["lines.1.description"] });
    expect(cellEvidence(evidence, "total")?.evidence.status).toBe("ambiguous");
    expect(cellEvidence(evidence, "seller.name")?.evidence.status).toBe("grounded");
    expect(cellEvidence(evidence, "paid")).toBeNull();
    expect(cellEvidence(evidence, "line")).toBeNull(); // not a prefix of "lines.…"
  });
});

describe("highlight geometry", () => {
  const near = (got: Rect, want: Rect) => {
    for (const k of ["left", "top", "width", "height"] as const) expect(got[k], k).toBeCloseTo(want[k], 9);
  };

  it("scales the box's fractions to the rendered page", () => {
    near(highlightRect([0.1, 0.2, 0.5, 0.25], 800, 1000), { left: 80, top: 200, width: 320, height: 50 });
    // The same box at twice the zoom.
    near(highlightRect([0.1, 0.2, 0.5, 0.25], 1600, 2000), { left: 160, top: 400, width: 640, height: 100 });
    // A fractional rendered size (a page fitted to an odd width).
    near(highlightRect([0.25, 0.5, 0.75, 1], 613.5, 793.7), { left: 153.375, top: 396.85, width: 306.75, height: 396.85 });
  });

  it("puts reversed corners right and keeps the box on the page", () => {
    near(highlightRect([0.5, 0.25, 0.1, 0.2], 800, 1000), { left: 80, top: 200, width: 320, height: 50 });
    near(highlightRect([-0.1, 0.9, 0.5, 1.2], 100, 100), { left: 0, top: 90, width: 50, height: 10 });
  });
});

describe("quotes in text", () => {
  it("finds the quote exactly, else across line breaks and case", () => {
    const text = "INVOICE A-100\nSeller: ACME\nGmbH\n\nTotal: 250.00 EUR";
    expect(findQuote(text, "A-100")).toEqual([8, 13]);
    const at = findQuote(text, "acme gmbh");
    expect(at && text.slice(at[0], at[1])).toBe("ACME\nGmbH");
    expect(findQuote(text, "Total: 250.00 (EUR)")).toBeNull();
    expect(findQuote(text, "")).toBeNull();
    expect(findQuote(text, undefined)).toBeNull();
  });
});
