// The desktop window (Wails). Files dropped on it, or picked with File >
// Import…, are imported by the Go side from their paths; it announces each
// import with runtime events. The page's own drop handling stays out of the
// way there, so a drop is imported once.

import { importedEvent, importingEvent, type ImportEvent } from "../api/api.gen";

/** The Wails runtime calls used here (window.runtime in the desktop app). */
interface DesktopRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
}

/** What the Go side sends with docent:importing and docent:imported (app/desktop.ImportEvent). */
export type DesktopImport = ImportEvent;

function desktopRuntime(): DesktopRuntime | null {
  const rt = typeof window !== "undefined" ? (window.runtime as Partial<DesktopRuntime> | undefined) : undefined;
  return rt && typeof rt.EventsOn === "function" ? (rt as DesktopRuntime) : null;
}

/** Whether the UI runs in the desktop window. */
export function isDesktop(): boolean {
  return desktopRuntime() !== null;
}

/**
 * In the desktop window: calls onStart and onDone around each import the Go
 * side runs, and keeps the page from handling (or navigating to) dropped
 * files. Returns the undo; a no-op in a browser.
 */
export function watchDesktopImports(
  onStart: (e: DesktopImport) => void,
  onDone: (e: DesktopImport) => void,
): () => void {
  const rt = desktopRuntime();
  if (!rt) return () => {};
  const offStart = rt.EventsOn(importingEvent, (e) => onStart(e as DesktopImport));
  const offDone = rt.EventsOn(importedEvent, (e) => onDone(e as DesktopImport));
  // Capture on window runs before the page's own listeners: the native
  // drop already imports these files.
  const swallow = (e: DragEvent) => {
    e.preventDefault();
    e.stopPropagation();
  };
  const opts = { capture: true };
  for (const t of ["dragenter", "dragover", "drop"] as const) window.addEventListener(t, swallow, opts);
  return () => {
    offStart();
    offDone();
    for (const t of ["dragenter", "dragover", "drop"] as const) window.removeEventListener(t, swallow, opts);
  };
}

/** The last part of a path, for showing it. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
