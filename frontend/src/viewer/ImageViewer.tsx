// An image document's pages: the original file where the browser shows its
// format (PNG, JPEG with its EXIF orientation, WebP, BMP), and for a TIFF,
// which browsers do not show, each page as PNG from the server
// (GET /api/documents/{id}/pages/{page}/image, made in a reader child).

import { useWidth } from "./useWidth";
import { useEffect, useRef, useState, type CSSProperties } from "react";
import { ErrorBox, Spinner } from "../components/common";
import { PageHighlight, type HighlightRequest } from "../evidence/PageHighlight";
import { api } from "../api/routes.gen";

export interface ImageViewerProps {
  docId: string;
  /** The original bytes, for formats the browser shows itself. */
  fileUrl: string;
  mediaType: string;
  pages: number;
  page: number;
  /** 0 = fit the width of the viewer. */
  zoom: number;
  onPages: (n: number) => void;
  /** A field's place to draw over its page (shown when that page is the one loaded). */
  highlight?: HighlightRequest | null;
}

/** Formats every browser Docent runs in (Chromium, WebKitGTK) shows. */
const shownByBrowsers = new Set(["image/png", "image/jpeg", "image/webp", "image/bmp"]);

export function pageImageURL(docId: string, page: number): string {
  return api.pageImageURL(docId, page);
}

export default function ImageViewer({ docId, fileUrl, mediaType, pages, page, zoom, onPages, highlight }: ImageViewerProps) {
  // Which source loaded or failed: a new page's image is not loaded until
  // its own load event, however soon that comes (no reset in an effect,
  // which a fast load could beat).
  const [loadedSrc, setLoadedSrc] = useState<string | null>(null);
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);

  useEffect(() => {
    onPages(Math.max(1, pages));
  }, [pages, onPages]);

  const n = Math.min(Math.max(1, page), Math.max(1, pages));
  const native = shownByBrowsers.has(mediaType) && pages <= 1;
  const src = (native ? fileUrl : pageImageURL(docId, n)) + (attempt ? `?retry=${attempt}` : "");

  const loaded = loadedSrc === src;
  const error = failedSrc === src ? `Cannot show page ${n} of this image.` : null;

  let style: CSSProperties = { maxWidth: "none" };
  if (natural) {
    const scale = zoom > 0 ? zoom : Math.max(0.1, Math.min(1, (width - 24) / natural.w));
    style = { width: Math.floor(natural.w * scale), height: Math.floor(natural.h * scale) };
  }

  return (
    <div className="pdf-viewer image-viewer" ref={box} data-testid="image-viewer">
      {error && <ErrorBox error={error} onRetry={() => setAttempt((a) => a + 1)} />}
      {!loaded && !error && <Spinner label="Opening image…" />}
      <div className="page-surface" data-testid="page-surface" data-page={n} hidden={!loaded}>
        <img
          key={src}
          src={src}
          alt={`Page ${n}`}
          className="pdf-canvas"
          data-testid="image-page"
          data-page={n}
          style={style}
          onLoad={(e) => {
            const img = e.currentTarget;
            setNatural({ w: img.naturalWidth, h: img.naturalHeight });
            setLoadedSrc(src);
          }}
          onError={() => setFailedSrc(src)}
        />
        <PageHighlight highlight={highlight} page={loaded ? n : 0} />
      </div>
    </div>
  );
}
