import type { ReactNode } from "react";
import { api } from "../api/routes.gen";
import type { SearchHit, SearchResult } from "../api/types";
import { ErrorBox, Spinner } from "../components/common";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";

/** How many passages the documents page shows for a search. */
const HITS = 8;

/** A snippet with the matched words («…») marked. */
export function Snippet({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let rest = text;
  for (let i = 0; ; i++) {
    const open = rest.indexOf("«");
    const close = open < 0 ? -1 : rest.indexOf("»", open);
    if (close < 0) {
      parts.push(rest);
      break;
    }
    parts.push(rest.slice(0, open), <mark key={i}>{rest.slice(open + 1, close)}</mark>);
    rest = rest.slice(close + 1);
  }
  return <span className="snippet">{parts}</span>;
}

const MATCHED: Record<string, string> = { meaning: "by meaning", both: "words + meaning", words: "by words" };

/** One passage: the document and page it is on (a link to that page), how it matched, and its snippet. */
function Hit({ hit }: { hit: SearchHit }) {
  return (
    <li className="search-hit" data-testid="search-hit" data-matched={hit.matched} data-doc-id={hit.document_id} data-page={hit.page}>
      <a href={`${href("documents", hit.document_id)}?page=${hit.page}`} className="doc-link">
        <span className="doc-name">{hit.document_name}</span> <span className="muted">page {hit.page}</span>
      </a>{" "}
      <span className={`badge matched-${hit.matched}`} data-testid="search-matched" title={hit.matched === "meaning" ? "Found by meaning: it may share no word with the search" : undefined}>
        {MATCHED[hit.matched] ?? hit.matched}
      </span>
      <div className="muted small-text">
        <Snippet text={hit.snippet} />
      </div>
    </li>
  );
}

/** The passages a search found, with the server's note (meaning search off or failed). */
export function HitList({ result }: { result: SearchResult }) {
  return (
    <section className="search-hits" data-testid="search-hits" data-by={result.by}>
      <h2 className="small-heading">
        Passages{" "}
        <span className="muted small-text">
          {result.by === "words" ? "with these words" : result.by === "meaning" ? "by meaning" : "by words and meaning"}
          {result.model ? ` (${result.model})` : ""}
        </span>
      </h2>
      {result.note && (
        <p className="muted small-text" role="status" data-testid="search-note">
          {result.note}
        </p>
      )}
      {result.hits.length === 0 ? (
        <p className="muted">No passage found.</p>
      ) : (
        <ul className="search-hit-list">
          {result.hits.map((h) => (
            <Hit key={h.chunk_id} hit={h} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The documents page's passages for a search: GET /api/search, as the agent's search_docs and `docent search` answer it. */
export function SearchHits({ query, tagId }: { query: string; tagId: string }) {
  const res = useAsync(() => api.search({ q: query, limit: HITS, tag: tagId ? [tagId] : undefined }), [query, tagId]);
  if (res.error) return <ErrorBox title="Search failed" error={res.error} onRetry={res.reload} />;
  if (!res.data) return res.loading ? <Spinner label="Searching…" /> : null;
  return <HitList result={res.data} />;
}

/**
 * On a document's page, while an embedding model is set and some of its text is not yet embedded: how far it is, and
 * why the rest waits. Nothing once it is all embedded, or without a model.
 */
export function DocumentEmbedNote({ docId, status }: { docId: string; status: string }) {
  const res = useAsync(() => api.searchStatus({ document_id: docId }), [docId, status]);
  const st = res.data;
  if (!st || !st.model || st.chunks === 0 || st.embedded >= st.chunks) return null;
  return (
    <div className="muted small-text" role="status" data-testid="doc-embed-note">
      Search by meaning: {st.embedded} of {st.chunks} passages embedded with {st.model}
      {st.running ? "; embedding…" : st.error ? `; the rest wait: ${st.error}` : "; the rest wait."}
    </div>
  );
}
