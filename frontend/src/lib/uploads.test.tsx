import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/http";
import { ErrorNote } from "../components/common";
import { answeredItem, failedItem, importedItems } from "./uploads";

describe("an upload's item keeps its error's code", () => {
  it("keeps the code, status and field of a refused upload, so the list words it by its code", () => {
    const item = failedItem(new ApiError(408, "The request body arrived too slowly.", "request_timeout"));
    expect(item.status).toBe("error");
    expect(item.error).toEqual({ message: "The request body arrived too slowly.", status: 408, code: "request_timeout" });
    const html = renderToString(<ErrorNote className="error" error={item.error} />);
    expect(html).toContain('data-kind="slow_request"');
    expect(html).toContain("The request body arrived too slowly.");
    expect(html).toMatch(/title="What was sent arrived too slowly\. Docent stops waiting for an upload that stalls/);
  });

  it("keeps a network failure as one", () => {
    const item = failedItem(new ApiError(0, "Upload failed: the server could not be reached.", "network"));
    expect(item.error?.code).toBe("network");
    expect(renderToString(<ErrorNote className="error" error={item.error} />)).toContain('data-kind="network"');
  });

  it("fails an answer that added nothing and notes a file that was not added beside one that was", () => {
    expect(answeredItem({ documents: [], duplicates: [], errors: [{ file: "a.pdf", error: "not a PDF" }] })).toEqual({
      status: "error",
      error: { message: "not a PDF" },
    });
    const doc = { id: "doc_1", name: "a.pdf" } as Parameters<typeof answeredItem>[0]["documents"][number];
    expect(answeredItem({ documents: [doc], duplicates: [], errors: [] })).toEqual({ status: "done", progress: 1, docId: "doc_1" });
    expect(answeredItem({ documents: [doc], duplicates: [], errors: [{ file: "b.pdf", error: "empty" }] }).error).toEqual({ message: "empty" });
  });

  it("lists a desktop import's documents, duplicates and failures", () => {
    const items = importedItems({
      paths: ["/in/a.pdf", "/in/b.pdf", "/in/c.pdf"],
      report: {
        documents: [{ id: "doc_a", name: "a.pdf" }],
        duplicates: [{ file: "/in/b.pdf", document_id: "doc_b" }],
        errors: [{ file: "/in/c.pdf", error: "cannot read `c.pdf`" }],
      },
    } as unknown as Parameters<typeof importedItems>[0]);
    expect(items.map((x) => [x.name, x.status, x.docId, x.error?.message])).toEqual([
      ["a.pdf", "done", "doc_a", undefined],
      ["b.pdf", "done", "doc_b", "already imported"],
      ["c.pdf", "error", undefined, "cannot read `c.pdf`"],
    ]);
  });
});
