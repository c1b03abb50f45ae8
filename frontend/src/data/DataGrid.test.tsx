import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { withQuery } from "../api/http";
import { rowQuery } from "../api/types";
import type { DataColumn, DataRow, DataRows, Extraction } from "../api/types";
import { ApiError } from "../api/http";
import { errorInput } from "../lib/errors";
import { CellError, DataGrid } from "./DataGrid";
import { rowFromExtraction } from "../pages/DataPage";
import { cellProblems, parseCellInput, reviewPager, RowStore, ROW_HEIGHT, windowOf, type FetchPage } from "./dataRows";

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
    validation_errors: [],
    evidence: {},
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
    expect(store.error?.message).toBe("boom");
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
    const q = withQuery("/rows", { offset: 0, limit: 100, ...rowQuery({ sort: "total", order: "desc", filters: { "seller.name": "ACME", total: " " }, status: "edited" }) });
    expect(q).toBe("/rows?offset=0&limit=100&sort=total&order=desc&filter=seller.name%3AACME&status=edited");
  });
});

describe("evidence in the data view", () => {
  /** Row i with evidence: every third has a total not found in the document, every fifth an ambiguous line amount. */
  function evRow(i: number): DataRow {
    const r = row(i);
    return {
      ...r,
      evidence: {
        invoice_number: { status: "grounded", page: 1, quote: `INV-${i}`, bbox: [0.1, 0.1, 0.3, 0.12] },
        total: i % 3 === 0 ? { status: "ungrounded" } : { status: "grounded", page: 2, quote: String(i * 1.5), bbox: [0.7, 0.8, 0.9, 0.82] },
        "seller.name": { status: "edited" },
        "lines.0.qty": i % 5 === 0 ? { status: "ambiguous", candidates: [{ page: 3, quote: "1" }, { page: 1, quote: "1" }] } : { status: "grounded", page: 1, quote: "1" },
      },
    };
  }

  function evServer(n: number) {
    const all = Array.from({ length: n }, (_, i) => evRow(i));
    const asked: [number, number][] = [];
    const fetchPage: FetchPage = async (offset, limit) => {
      asked.push([offset, limit]);
      return { columns, rows: all.slice(offset, offset + limit), total: n };
    };
    return { fetchPage, asked };
  }

  const cells = (html: string) => [...html.matchAll(/<div[^>]*data-testid="data-cell"[^>]*>/g)].map((m) => m[0]);
  const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

  it("marks each cell with its status and links the mark to the field in its document", async () => {
    const srv = evServer(6);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 6);
    await settle();
    const html = render(store, { height: 800, scrollTop: 0 });
    const marks = [...html.matchAll(/<a[^>]*data-testid="evidence-mark"[^>]*>/g)].map((m) => m[0]);
    // Four columns with evidence in each of six rows.
    expect(marks).toHaveLength(24);
    // Row 0: total not found: a red mark, linking to the field (no page), named for screen readers.
    const total0 = marks.find((m) => m.includes("doc_0") && m.includes("field=total"))!;
    expect(attr(total0, "data-status")).toBe("ungrounded");
    expect(attr(total0, "href")).toBe("#/documents/doc_0?field=total");
    expect(attr(total0, "aria-label")).toContain("total: not found in the document");
    // Row 1: total found on page 2: the link opens that page.
    const total1 = marks.find((m) => m.includes("doc_1") && m.includes("field=total"))!;
    expect(attr(total1, "data-status")).toBe("grounded");
    expect(attr(total1, "href")).toBe("#/documents/doc_1?page=2&amp;field=total");
    // The array column shows its items' worst: row 0's ambiguous quantity, at its likeliest page.
    const lines0 = marks.find((m) => m.includes("doc_0") && m.includes("field=lines.0.qty"))!;
    expect(attr(lines0, "data-status")).toBe("ambiguous");
    expect(attr(lines0, "href")).toBe("#/documents/doc_0?page=3&amp;field=lines.0.qty");
    // The cells say it too, and the marks add no text to them.
    const statuses = cells(html).map((c) => `${attr(c, "data-path")}=${attr(c, "data-evidence")}`);
    expect(statuses.slice(0, 4)).toEqual(["invoice_number=grounded", "total=ungrounded", "seller.name=edited", "lines=ambiguous"]);
    expect(html).not.toMatch(/data-testid="evidence-mark"[^>]*>[^<]/);
    // Rows with something to review carry a count.
    expect([...html.matchAll(/data-testid="row-review" data-count="(\d+)"/g)].map((m) => m[1])).toEqual(["2", "1", "1"]);
  });

  it("shows no marks for rows without evidence", async () => {
    const srv = syntheticServer(3);
    const store = new RowStore(srv.fetchPage);
    store.ensure(0, 3);
    await settle();
    const html = render(store, { height: 800, scrollTop: 0 });
    expect(html).not.toContain("evidence-mark");
    expect(html).not.toContain("row-review");
    expect(html).not.toContain("data-evidence");
  });

  it("filters the rows that need review, paging through them", async () => {
    // 2,500 rows: those with i % 3 == 0 or i % 5 == 0 need review.
    const srv = evServer(2_500);
    const pager = reviewPager(srv.fetchPage);
    const store = new RowStore(pager.fetchPage, 100);
    store.ensure(0, 1);
    await settle();
    const want = Array.from({ length: 2_500 }, (_, i) => i).filter((i) => i % 3 === 0 || i % 5 === 0);
    expect(store.total).toBe(want.length);
    expect(srv.asked).toEqual([
      [0, 1000],
      [1000, 1000],
      [2000, 1000],
    ]);
    expect(store.row(0)?.document_id).toBe("doc_0");
    expect(store.row(1)?.document_id).toBe("doc_3");
    expect(store.row(2)?.document_id).toBe("doc_5");
    // Another page is cut from the same rows: no new request.
    store.ensure(500, 600);
    await settle();
    expect(srv.asked).toHaveLength(3);
    expect(store.row(550)?.document_id).toBe(`doc_${want[550]}`);
    // Select all gives exactly the rows to review.
    expect((await store.loadAll()).map((r) => r.document_id)).toEqual(want.map((i) => `doc_${i}`));
    // After an edit or a re-run the rows are fetched again.
    pager.invalidate();
    store.refresh();
    store.ensure(0, 1);
    await settle();
    expect(srv.asked).toHaveLength(6);
  });

  it("tries again after a failed fetch of the rows to review", async () => {
    let fail = true;
    const srv = evServer(10);
    const pager = reviewPager(async (o, l, s) => {
      if (fail) throw new Error("offline");
      return srv.fetchPage(o, l, s);
    });
    await expect(pager.fetchPage(0, 100, new AbortController().signal)).rejects.toThrow("offline");
    fail = false;
    const ans = await pager.fetchPage(0, 100, new AbortController().signal);
    expect(ans.rows.map((r) => r.document_id)).toEqual(["doc_0", "doc_3", "doc_5", "doc_6", "doc_9"]);
    expect(ans.total).toBe(5);
  });

  it("keeps a row's evidence after an edit, the edited field marked edited", () => {
    const x = { extraction_id: "ext_1", value: { invoice_number: "INV-1", total: 99, seller: { name: "Z" }, lines: [] }, validation_status: "valid", validation_errors: [] } as unknown as Extraction;
    const r = rowFromExtraction(evRow(3), columns, "total", x);
    expect(r.evidence?.total.status).toBe("edited");
    expect(r.evidence?.invoice_number.status).toBe("grounded");
    // The server's evidence wins when the answer has some.
    const withEv = { ...x, evidence: { total: { status: "edited", page: 2 } } } as unknown as Extraction;
    expect(rowFromExtraction(evRow(3), columns, "total", withEv).evidence).toEqual({ total: { status: "edited", page: 2 } });
  });
});

describe("a refused cell edit", () => {
  it("keeps the server's code and shows its message, classified by the code, with the way out", () => {
    const html = renderToString(<CellError error={errorInput(new ApiError(400, "total: expected `number`, got string", "invalid", "values.total"))} />);
    expect(html).toMatch(/^<div class="dg-bubble error" role="alert" data-testid="cell-error" data-kind="invalid">/);
    expect(html).toContain("<span>total: expected </span><code>number</code><span>, got string</span>");
    expect(html).toContain("Enter to try again, Esc to keep the old value.");
    const down = renderToString(<CellError error={errorInput(new ApiError(0, "Cannot reach the Docent server.", "network"))} />);
    expect(down).toContain('data-kind="network"');
    expect(down).toContain('title="Docent&#x27;s server did not answer. Check that Docent is still running, then try again."');
  });
});
