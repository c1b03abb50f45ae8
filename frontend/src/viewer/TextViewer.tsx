import { useEffect, useRef } from "react";
import { api } from "../api/routes.gen";
import { ErrorBox, Spinner } from "../components/common";
import { findQuote } from "../evidence/evidence";
import { useScrollToOnce, type HighlightRequest } from "../evidence/PageHighlight";
import { useAsync } from "../lib/useAsync";

/**
 * A text document's page. A text page has no boxes: a selected field's
 * quote is marked in the page's text instead, where it is found.
 */
export function TextViewer({ docId, page, onPages, highlight }: { docId: string; page: number; onPages: (n: number) => void; highlight?: HighlightRequest | null }) {
  const text = useAsync(() => api.documentText(docId, { page }), [docId, page]);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    if (text.data?.pages) onPages(text.data.pages);
  }, [text.data, onPages]);
  const body = text.data?.text ?? "";
  const onPage = !!highlight && highlight.page === page && (text.data?.page === undefined || text.data.page === page);
  const at = onPage ? findQuote(body, highlight!.quote) : null;
  useScrollToOnce(mark, highlight?.key, !!at);
  if (text.error) return <ErrorBox error={text.error} onRetry={text.reload} />;
  if (!text.data) return <Spinner label="Loading text…" />;
  return (
    <div className="text-viewer" data-testid="text-viewer">
      {body ? (
        <pre>
          {at ? (
            <>
              {body.slice(0, at[0])}
              <mark ref={mark} className="evidence-highlight" data-testid="evidence-highlight" data-page={page}>
                {body.slice(at[0], at[1])}
              </mark>
              {body.slice(at[1])}
            </>
          ) : (
            body
          )}
        </pre>
      ) : (
        <p className="muted">This page has no text.</p>
      )}
    </div>
  );
}
