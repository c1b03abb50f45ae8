import { describe, expect, it } from "vitest";
import { parseHash } from "../lib/router";
import { dataStateFromQuery, dataStateToQuery, dataViewHash, emptyDataView, sameDataView, type DataViewState } from "./dataUrl";

describe("the data view's state in its URL", () => {
  it("leaves the defaults out", () => {
    expect(dataStateToQuery(emptyDataView)).toBe("");
    expect(dataViewHash("sch_1", emptyDataView)).toBe("#/data/sch_1");
    expect(dataStateFromQuery("")).toEqual(emptyDataView);
  });

  it("comes back the same from its address", () => {
    const s: DataViewState = {
      sort: { path: "total", order: "desc" },
      filters: { "seller.name": "acme gmbh", invoice_number: "A:1&2" },
      status: "edited",
      review: true,
    };
    const hash = dataViewHash("sch_1", s);
    expect(hash).toBe("#/data/sch_1?sort=total&order=desc&q=invoice_number%3AA%3A1%262&q=seller.name%3Aacme+gmbh&status=edited&review=1");
    // As the router reads it after a reload.
    const route = parseHash(hash);
    expect(route.parts).toEqual(["data", "sch_1"]);
    expect(dataStateFromQuery(route.query)).toEqual(s);
    expect(sameDataView(dataStateFromQuery(route.query), s)).toBe(true);
  });

  it("keeps an ascending sort without an order", () => {
    const s: DataViewState = { ...emptyDataView, sort: { path: "document_name", order: "asc" } };
    expect(dataStateToQuery(s)).toBe("sort=document_name");
    expect(dataStateFromQuery("sort=document_name")).toEqual(s);
  });

  it("reads what people write by hand, and ignores what it cannot use", () => {
    expect(dataStateFromQuery("?sort=-total&filter=seller.name:acme&review=true")).toEqual({
      sort: { path: "total", order: "desc" },
      filters: { "seller.name": "acme" },
      status: "",
      review: true,
    });
    expect(dataStateFromQuery("status=bogus&q=nopath&q=:x&q=total:%20&review=0")).toEqual(emptyDataView);
  });

  it("leaves out empty filters", () => {
    expect(dataStateToQuery({ ...emptyDataView, filters: { total: " ", "seller.name": "" } })).toBe("");
  });
});
