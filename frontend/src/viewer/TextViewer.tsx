import { useEffect } from "react";
import { api } from "../api/routes";
import { ErrorBox, Spinner } from "../components/common";
import { useAsync } from "../lib/useAsync";

export function TextViewer({ docId, page, onPages }: { docId: string; page: number; onPages: (n: number) => void }) {
  const text = useAsync(() => api.documentText(docId, page), [docId, page]);
  useEffect(() => {
    if (text.data?.pages) onPages(text.data.pages);
  }, [text.data, onPages]);
  if (text.error) return <ErrorBox error={text.error} onRetry={text.reload} />;
  if (!text.data) return <Spinner label="Loading text…" />;
  return (
    <div className="text-viewer" data-testid="text-viewer">
      {text.data.text ? <pre>{text.data.text}</pre> : <p className="muted">This page has no text.</p>}
    </div>
  );
}
