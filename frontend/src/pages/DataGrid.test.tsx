import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { dataQueryString } from "../api/routes";
import type { DataColumn, DataRow, DataRows, Extraction } from "../api/types";
import { DataGrid } from "./DataGrid";
import { rowFromExtraction } from "./DataPage";
import { cellProblems, parseCellInput, RowStore, ROW_HEIGHT, windowOf, type FetchPage } from "./dataRows";

const columns: DataColumn[] = [
  { path: "invoice_number", type: "string", title: "invoice_number" },
  { path: "total", type: "number", title: "total" },
  { path: "seller.name", type: "string", title: "seller.name" },
  { path: "lines", type: "array", title: "lines" },
];

function row(i: number): DataRow {
  return {
    document_id: `doc_${i}`,
    document_name: `invoice-${String(i).padStart(5, "0")}.txt`,
    extraction_id: `ext_${i}`,
    validation_status: i % 7 ? "valid" : "invalid",
    auto_create_status: i % 3 ? "accepted" : "proposed",
    edited: i % 5 ? [] : ["total"],
    values: { invoice_number: `INV-${i}`, total: i * 1.5, "seller.name": "ACME", lines: [{ sku: "a", qty: 1 }, { sku: "b", qty: 2 }, { sku: "c", qty: i }] },
  };
}

/** A server of n rows that answers at once and counts what it was asked. */
function syntheticServer(n: number) {
  const all = Array.from({ length: n }, (_, i) => row(i));
  const asked: [number, number][] = [];
  const fetchPage: FetchPage = async (offset, limit) => {
    asked.push([offset, limit]);
    const ans: DataRows = { columns, rows: all.slice(offset, offset + limit), total: n };
    return ans;
  };
  return { fetchPage, asked };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function render(store: RowStore, viewport: { height: number; scrollTop: number }): string {
  return renderToString(
    <DataGrid
      store={store}
      sort={{ path: "total", order: "desc" }}
      onSort={() => {}}
      filters={{ total: "1" }}
      onFilter={() => {}}
      selected={new Map([["doc_3", row(3)]])}
      onSelect={() => {}}
      selectAll="some"
      onSelectAll={() => {}}
      onSave={async () => {}}
      queryKey="q"
      initialViewport={viewport}
    />,
  );
}

const count = (html: string, s: string) => html.split(s).length - 1;

describe("the data view at 10,000 rows", () => {
  it("fetches only the pages of the window it is asked for", async () => {
    const srv = syntheticServer(10_000);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 1);
    await settle();
    expect(store.total).toBe(10_000);
    expect(srv.asked).toEqual([[0, 100]]);
    const w = windowOf(5000 * ROW_HEIGHT, 800, 10_000);
    store.ensure(w.start, w.end);
    store.ensure(w.start, w.end); // in flight: not asked twice
    await settle();
    expect(srv.asked).toEqual([
      [0, 100],
      [4900, 100],
      [5000, 100],
    ]);
    expect(store.loadedCount()).toBe(300);
    expect(store.row(5000)?.document_id).toBe("doc_5000");
    expect(store.row(6000)).toBeUndefined();
  });

  it("renders only the visible window of 10,000 rows, over a body as tall as all of them", async () => {
    const srv = syntheticServer(10_000);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 10_000); // every row is here: the grid still renders only a window
    await settle();
    expect(store.loadedCount()).toBe(10_000);

    const top = render(store, { height: 800, scrollTop: 0 });
    const rendered = count(top, 'data-testid="data-row"');
    // 800px / 32px = 25 visible rows, + 1 partial, + 8 below.
    expect(rendered).toBe(34);
    expect(top).toContain(`height:${10_000 * ROW_HEIGHT}px`);
    expect(top).toContain('data-index="0"');
    expect(top).not.toContain('data-index="40"');
    // Arrays are summarised; the edited marker and the sort arrow show.
    expect(top).toContain("3 items");
    expect(top).toContain('data-edited="true"');
    expect(top).toContain('data-order="desc"');

    const middle = render(store, { height: 800, scrollTop: 5000 * ROW_HEIGHT });
    expect(count(middle, 'data-testid="data-row"')).toBe(42); // 8 above, 26 in view, 8 below
    expect(middle).toContain('data-index="4992"');
    expect(middle).toContain('data-index="5033"');
    expect(middle).not.toContain('data-index="4991"');
    expect(middle).not.toContain('data-index="5034"');
    expect(middle).toContain(`top:${5000 * ROW_HEIGHT}px`);

    const bottom = render(store, { height: 800, scrollTop: 10_000 * ROW_HEIGHT - 800 });
    expect(bottom).toContain('data-index="9999"');
    expect(count(bottom, 'data-testid="data-row"')).toBeLessThanOrEqual(42);
  });

  it("shows rows whose page has not come as placeholders of the same height", async () => {
    const srv = syntheticServer(10_000);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 1);
    await settle();
    const html = render(store, { height: 800, scrollTop: 5000 * ROW_HEIGHT });
    expect(count(html, 'data-testid="data-row"')).toBe(0);
    expect(count(html, 'data-testid="data-row-pending"')).toBe(42);
  });
});

describe("RowStore", () => {
  it("drops the answers of a query it has left", async () => {
    let release: (v: DataRows) => void = () => {};
    const slow: FetchPage = () => new Promise<DataRows>((r) => (release = r));
    const store = new RowStore(slow);
    store.ensure(0, 1);
    const srv = syntheticServer(3);
    store.setQuery(srv.fetchPage);
    release({ columns, rows: [row(99)], total: 1 });
    store.ensure(0, 1);
    await settle();
    expect(store.total).toBe(3);
    expect(store.row(0)?.document_id).toBe("doc_0");
  });

  it("keeps showing rows across a refresh until the new ones come, then replaces them", async () => {
    let n = 0;
    const fetchPage: FetchPage = async () => ({ columns, rows: [{ ...row(0), extraction_id: `ext_v${++n}` }], total: 1 });
    const store = new RowStore(fetchPage);
    store.ensure(0, 1);
    await settle();
    expect(store.row(0)?.extraction_id).toBe("ext_v1");
    store.refresh();
    expect(store.row(0)?.extraction_id).toBe("ext_v1");
    store.ensure(0, 1);
    await settle();
    expect(store.row(0)?.extraction_id).toBe("ext_v2");
  });

  it("stops asking after an error until refreshed", async () => {
    let calls = 0;
    const store = new RowStore(async () => {
      calls++;
      throw new Error("boom");
    });
    store.ensure(0, 1);
    await settle();
    expect(store.error).toBe("boom");
    store.ensure(0, 1);
    expect(calls).toBe(1);
    store.refresh();
    store.ensure(0, 1);
    await settle();
    expect(calls).toBe(2);
  });

  it("loads every page for select-all, a thousand rows a request", async () => {
    const srv = syntheticServer(2_500);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 1);
    await settle();
    const rows = await store.loadAll();
    expect(rows.map((r) => r.document_id)).toEqual(Array.from({ length: 2_500 }, (_, i) => `doc_${i}`));
    expect(srv.asked).toEqual([
      [0, 100],
      [0, 1000],
      [1000, 1000],
      [2000, 1000],
    ]);
    expect(store.row(2499)?.document_id).toBe("doc_2499");
  });
});

describe("cells", () => {
  it("sends numbers as numbers and anything else as typed, for the schema to judge", () => {
    expect(parseCellInput("12.5", "number")).toBe(12.5);
    expect(parseCellInput("abc", "number")).toBe("abc");
    expect(parseCellInput("", "number|null")).toBe(null);
    expect(parseCellInput("", "string")).toBe("");
    expect(parseCellInput("007", "string")).toBe("007");
    expect(parseCellInput("true", "boolean")).toBe(true);
    expect(parseCellInput('[{"a":1}]', "array")).toEqual([{ a: 1 }]);
  });

  it("puts a problem on the column its path falls in", () => {
    const r = { ...row(1), validation_errors: [{ path: "/lines/2/qty", message: "expected integer" }, { path: "total", message: "too big" }] };
    expect(cellProblems(r, "lines")).toEqual(["expected integer"]);
    expect(cellProblems(r, "total")).toEqual(["too big"]);
    expect(cellProblems(r, "seller.name")).toEqual([]);
  });

  it("updates a row from the patched extraction", () => {
    const x = { extraction_id: "ext_1", value: { invoice_number: "INV-1", total: 99, seller: { name: "Z" }, lines: [] }, validation_status: "valid", validation_errors: [] } as unknown as Extraction;
    const r = rowFromExtraction(row(1), columns, "total", x);
    expect(r.values).toEqual({ invoice_number: "INV-1", total: 99, "seller.name": "Z", lines: [] });
    expect(r.edited).toEqual(["total"]);
  });

  it("builds the rows and export query with one filter parameter per column", () => {
    const q = dataQueryString({ sort: "total", order: "desc", filters: { "seller.name": "ACME", total: " " }, status: "edited" }, { offset: 0, limit: 100 });
    expect(q).toBe("offset=0&limit=100&sort=total&order=desc&filter=seller.name%3AACME&status=edited");
  });
});
