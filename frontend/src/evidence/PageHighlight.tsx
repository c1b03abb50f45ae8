// The box over a rendered page (PDF canvas or image) where a selected
// field's value stands. It lives inside the page's surface element (which
// has exactly the page's size, position: relative) and follows its size,
// so it stays right at any zoom and when the viewer is resized; it
// scrolls itself into view once per selection.

import { useEffect, useRef, useState, type RefObject } from "react";
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

/**
 * The rendered size of an element, followed as it changes. A passive
 * effect, not a layout one: the element is usually a parent, whose ref is
 * set only after its children's layout effects have run.
 */
export function useRenderedSize(ref: RefObject<HTMLElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const r = el.getBoundingClientRect();
      setSize((s) => (s.width === r.width && s.height === r.height ? s : { width: r.width, height: r.height }));
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return size;
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

export function PageHighlight({ surface, highlight, page }: { surface: RefObject<HTMLElement | null>; highlight?: HighlightRequest | null; page: number }) {
  const size = useRenderedSize(surface);
  const el = useRef<HTMLDivElement>(null);
  const shown = !!highlight?.bbox && highlight.page === page && size.width > 0 && size.height > 0;
  useScrollToOnce(el, highlight?.key, shown);
  if (!shown) return null;
  const r = highlightRect(highlight!.bbox!, size.width, size.height);
  return (
    <div
      ref={el}
      className="evidence-highlight"
      data-testid="evidence-highlight"
      data-page={page}
      style={{ left: r.left, top: r.top, width: r.width, height: r.height }}
      aria-hidden="true"
    />
  );
}
