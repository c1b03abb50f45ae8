// The box over a rendered page (PDF canvas or image) where a selected
// field's value stands. It lives inside the page's surface element (which
// has exactly the page's size, position: relative) and is placed in
// percentages of it, so the browser keeps it right at any zoom and when
// the viewer is resized: a size measured in script lags the page by a
// frame (a canvas is 300×150 until pdf.js sizes it), and a box drawn from
// it stood in the wrong place meanwhile. It scrolls itself into view once
// per selection.

import { useEffect, useRef, type RefObject } from "react";
import type { EvidenceBox } from "../api/types";
import { highlightRect } from "./evidence";
import "./evidence.css";

/** What the document page asks a viewer to highlight. */
export interface HighlightRequest {
  /** 1-based. */
  page: number;
  bbox?: EvidenceBox;
  quote?: string;
  /** Changes with every selection: the viewer scrolls to it again. */
  key: number;
}

/** Scrolls an element into view the first time it shows for a selection key. */
export function useScrollToOnce(el: RefObject<HTMLElement | null>, key: number | undefined, shown: boolean): void {
  const done = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!shown || key === undefined || done.current === key || !el.current) return;
    done.current = key;
    el.current.scrollIntoView?.({ block: "center", inline: "center" });
  });
}

export function PageHighlight({ highlight, page }: { highlight?: HighlightRequest | null; page: number }) {
  const el = useRef<HTMLDivElement>(null);
  const shown = !!highlight?.bbox && highlight.page === page;
  useScrollToOnce(el, highlight?.key, shown);
  if (!shown) return null;
  const r = highlightRect(highlight!.bbox!, 100, 100);
  return (
    <div
      ref={el}
      className="evidence-highlight"
      data-testid="evidence-highlight"
      data-page={page}
      style={{ left: `${r.left}%`, top: `${r.top}%`, width: `${r.width}%`, height: `${r.height}%` }}
      aria-hidden="true"
    />
  );
}
