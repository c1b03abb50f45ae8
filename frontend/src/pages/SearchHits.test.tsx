import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { SearchHit, SearchResult } from "../api/types";
import { HitList } from "./SearchHits";

const hit = (over: Partial<SearchHit>): SearchHit => ({
  document_id: "doc_1", document_name: "Taxifahrt.pdf", chunk_id: 7, page: 2,
  snippet: "Taxifahrt vom 29.10.2018", score: 0.03, matched: "meaning", ...over,
});

describe("the passages of a search", () => {
  it("marks a hit found by meaning and links to its page", () => {
    const res: SearchResult = { hits: [hit({})], by: "both", model: "ollama/nomic-embed-text" };
    const html = renderToString(<HitList result={res} />);
    expect(html).toContain('data-matched="meaning"');
    expect(html).toContain("by meaning");
    expect(html).toContain('href="#/documents/doc_1?page=2"');
    expect(html).toContain("page <!-- -->2");
    expect(html).toContain("ollama/nomic-embed-text");
  });

  it("marks the matched words of a hit by words, and shows the server's note", () => {
    const res: SearchResult = {
      hits: [hit({ matched: "words", snippet: "the «Taxifahrt» vom" })],
      by: "words",
      note: "search by meaning is off: no embedding model is set",
    };
    const html = renderToString(<HitList result={res} />);
    expect(html).toContain("<mark>Taxifahrt</mark>");
    expect(html).not.toContain("«");
    expect(html).toContain('data-testid="search-note"');
    expect(html).toContain("search by meaning is off");
    expect(html).not.toContain(">by meaning<");
  });
});
