// The window's title per page: "invoice-42.pdf — Docent", "Schemas — Docent".
//
//   useTitle(doc.data?.name);            // in a page; undefined/"" while loading
//   useTitle("Schemas", 0);              // the app shell's fallback for a section
//
// Several components may ask at once (the shell and the page inside it):
// the highest priority wins, and among equals the one that asked last.
// When a component unmounts its title goes with it. The desktop window
// keeps its own title ("Docent"); this sets document.title only.

import { useEffect } from "react";

const APP = "Docent";

interface Entry {
  title: string;
  priority: number;
  seq: number;
}

const entries = new Map<symbol, Entry>();
let seq = 0;

function apply(): void {
  let best: Entry | null = null;
  for (const e of entries.values()) {
    if (!best || e.priority > best.priority || (e.priority === best.priority && e.seq > best.seq)) best = e;
  }
  if (typeof document !== "undefined") document.title = titleText(best?.title);
}

/** "NAME — Docent", or "Docent" alone. */
export function titleText(title: string | undefined | null): string {
  const t = title?.trim();
  return t ? `${t} — ${APP}` : APP;
}

/** Sets the window title while the component is mounted (see above). Priority 1 is a page's, 0 the shell's. */
export function useTitle(title: string | undefined | null, priority = 1): void {
  useEffect(() => {
    if (!title) return;
    const key = Symbol(title);
    entries.set(key, { title, priority, seq: ++seq });
    apply();
    return () => {
      entries.delete(key);
      apply();
    };
  }, [title, priority]);
}
