// pdf.js rendering of one page at a time onto a canvas, inside the page's
// surface (exactly the canvas's box) where a selected field's box is drawn. This module is
// lazy-loaded, so pdf.js (and its worker, bundled through Vite's ?url import,
// never fetched from a CDN) only loads when a PDF is opened.

import { useWidth } from "./useWidth";
import { useEffect, useRef, useState } from "react";
import * as pdfjs from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import type { PDFDocumentProxy, RenderTask } from "pdfjs-dist";
import { errorFromResponse } from "../api/http";
import { ErrorBox, Spinner } from "../components/common";
import { PageHighlight, type HighlightRequest } from "../evidence/PageHighlight";

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

export interface PdfViewerProps {
  url: string;
  page: number;
  /** 0 = fit the width of the viewer. */
  zoom: number;
  onPages: (n: number) => void;
  /** A field's place to draw over its page (shown when that page is the one rendered). */
  highlight?: HighlightRequest | null;
}

export default function PdfViewer({ url, page, zoom, onPages, highlight }: PdfViewerProps) {
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  // The page on the canvas (0 before the first), so that a highlight is
  // never drawn over the page before the one asked for.
  const [shown, setShown] = useState(0);

  useEffect(() => {
    let cancelled = false;
    let loaded: PDFDocumentProxy | null = null;
    setDoc(null);
    setError(null);
    (async () => {
      const res = await fetch(url, { credentials: "same-origin" });
      if (!res.ok) throw await errorFromResponse(res);
      const data = new Uint8Array(await res.arrayBuffer());
      const d = await pdfjs.getDocument({ data }).promise;
      loaded = d;
      if (cancelled) {
        void d.destroy();
        return;
      }
      setDoc(d);
      onPages(d.numPages);
    })().catch((e: unknown) => {
      if (!cancelled) setError(`Cannot show this PDF: ${e instanceof Error ? e.message : String(e)}`);
    });
    return () => {
      cancelled = true;
      if (loaded) void loaded.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url, attempt]);

  useEffect(() => {
    if (!doc || !canvas.current || width === 0) return;
    let task: RenderTask | null = null;
    let cancelled = false;
    const n = Math.min(Math.max(1, page), doc.numPages);
    doc.getPage(n).then((p) => {
      if (cancelled || !canvas.current) return;
      const base = p.getViewport({ scale: 1 });
      const scale = zoom > 0 ? zoom : Math.max(0.25, (width - 24) / base.width);
      const viewport = p.getViewport({ scale });
      const dpr = window.devicePixelRatio || 1;
      const c = canvas.current;
      c.width = Math.floor(viewport.width * dpr);
      c.height = Math.floor(viewport.height * dpr);
      c.style.width = `${Math.floor(viewport.width)}px`;
      c.style.height = `${Math.floor(viewport.height)}px`;
      setShown(n);
      task = p.render({ canvas: c, viewport, transform: dpr !== 1 ? [dpr, 0, 0, dpr, 0, 0] : undefined });
      task.promise.catch(() => {
        /* cancelled by a newer render */
      });
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, page, zoom, width]);

  return (
    <div className="pdf-viewer" ref={box} data-testid="pdf-viewer">
      {error && <ErrorBox error={error} onRetry={() => setAttempt((a) => a + 1)} />}
      {!doc && !error && <Spinner label="Opening PDF…" />}
      <div className="page-surface" data-testid="page-surface" data-page={shown || undefined} hidden={!doc}>
        <canvas ref={canvas} className="pdf-canvas" data-testid="pdf-canvas" data-page={shown || undefined} />
        <PageHighlight highlight={highlight} page={shown} />
      </div>
    </div>
  );
}
