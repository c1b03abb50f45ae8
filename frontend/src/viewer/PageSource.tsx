// Where the current page's text came from: the file's text layer, OCR
// (engine, languages, confidence) or a vision model; shown for pages that
// were read, so a person knows how far to trust a scan's text.

import { api } from "../api/routes.gen";
import { useAsync } from "../lib/useAsync";
import type { PageDetail } from "../api/types";

/** A short line for a page's source; "" for a text layer (nothing to say). */
export function sourceText(p: Pick<PageDetail, "page" | "source" | "engine" | "lang" | "confidence" | "note"> | undefined): string {
  if (!p) return "";
  switch (p.source) {
    case "ocr": {
      const conf = p.confidence !== undefined ? `, ${Math.round(p.confidence * 100)} % confident` : "";
      return `Text read by OCR (${[p.engine, p.lang].filter(Boolean).join(", ")}${conf})${p.note ? `: ${p.note}` : ""}`;
    }
    case "vision":
      return `Text read by the vision model ${p.engine ?? ""}${p.note ? `: ${p.note}` : ""}`;
    case "none":
      return "No text read yet";
    default:
      return "";
  }
}

export function PageSource({ docId, page, status }: { docId: string; page: number; status: string }) {
  const pages = useAsync(
    () => api.documentPages(docId).then((x) => x.pages),
    [docId, status],
  );
  const text = sourceText(pages.data?.find((p) => p.page === page));
  if (!text) return null;
  return (
    <span className="muted page-source" data-testid="page-source" title={text}>
      {text}
    </span>
  );
}
