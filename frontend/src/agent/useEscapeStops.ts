// Esc stops a running turn wherever the focus is, in the document chat and
// on the Ask page alike.

import { useEffect } from "react";

/** While running, Esc anywhere on the page calls stop. */
export function useEscapeStops(running: boolean, stop: () => void): void {
  useEffect(() => {
    if (!running) return;
    const on = (e: KeyboardEvent) => {
      if (e.key === "Escape") stop();
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, [running, stop]);
}
