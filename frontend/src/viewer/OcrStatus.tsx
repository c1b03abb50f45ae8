// Where text recognition stands for a document that waits for it or is
// being read: a progress line that follows the document until OCR ends.
// In a browser the server streams each change (GET .../events); in the
// desktop window, whose asset server does not promise streamed responses,
// and whenever the stream fails, the document is asked for every 2 s.

import { useEffect } from "react";
import type { DocumentInfo } from "../api/types";
import { isDesktop } from "../lib/desktop";
import { api } from "../api/routes.gen";

export function OcrStatus({ doc, onChanged }: { doc: DocumentInfo; onChanged: () => void }) {
  const active = doc.status === "needs_ocr" || doc.status === "ocr";
  useEffect(() => {
    if (!active) return;
    let poll: ReturnType<typeof setInterval> | null = null;
    const startPolling = () => {
      if (!poll) poll = setInterval(onChanged, 2000);
    };
    let es: EventSource | null = null;
    if (!isDesktop() && typeof EventSource !== "undefined") {
      es = new EventSource(api.documentEventsURL(doc.id), { withCredentials: true });
      es.onmessage = () => onChanged();
      es.onerror = () => {
        // The server ends the stream once OCR is done (onChanged then
        // shows the ready document); any other end falls back to polling.
        es?.close();
        es = null;
        onChanged();
        startPolling();
      };
    } else {
      startPolling();
    }
    return () => {
      es?.close();
      if (poll) clearInterval(poll);
    };
  }, [active, doc.id, onChanged]);
  if (doc.status !== "ocr") return null;
  const done = doc.ocr_pages_done ?? 0;
  const total = doc.ocr_pages_total ?? 0;
  return (
    <div className="doc-error status-needs_ocr" data-testid="ocr-progress" role="status">
      Reading the text (OCR): {total ? `page ${done} of ${total}` : "starting"}…
      {total > 0 && <progress max={total} value={done} style={{ marginLeft: 8, verticalAlign: "middle" }} />}
    </div>
  );
}
