// Where text recognition stands for a document that waits for it or is
// being read: a progress line that refreshes the document until OCR ends.

import { useEffect } from "react";
import type { DocumentInfo } from "../api/types";

export function OcrStatus({ doc, onChanged }: { doc: DocumentInfo; onChanged: () => void }) {
  const active = doc.status === "needs_ocr" || doc.status === "ocr";
  useEffect(() => {
    if (!active) return;
    const t = setInterval(onChanged, 2000);
    return () => clearInterval(t);
  }, [active, onChanged]);
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
