// GET /api/setup, shared by every component that shows it (the composer,
// the Settings page), asked again when a component mounts, when the window
// gets the focus back (the user may have just run `ollama pull` in a
// terminal) and after the settings change (refreshSetup).

import { useEffect, useSyncExternalStore } from "react";
import { getSetup } from "../api/routes.gen";
import type { SetupStatus } from "../api/types";
import { errorInput, type ErrorInput } from "../lib/errors";

export interface SetupState {
  data?: SetupStatus;
  error?: ErrorInput;
  loading: boolean;
}

let state: SetupState = { loading: false };
let inflight: Promise<void> | null = null;
let seq = 0;
const listeners = new Set<() => void>();

function set(next: SetupState) {
  state = next;
  listeners.forEach((fn) => fn());
}

/**
 * Asks the server again; the latest answer wins. With reuse, a request
 * already under way is shared instead (a component mounting, the window
 * getting the focus); without, a new one is made, so that a change just
 * saved is seen.
 */
export function refreshSetup({ reuse = false } = {}): Promise<void> {
  if (reuse && inflight) return inflight;
  const my = ++seq;
  set({ ...state, loading: true });
  const p: Promise<void> = getSetup().then(
    (data) => {
      if (my === seq) set({ data, loading: false });
    },
    (e) => {
      if (my === seq) set({ data: state.data, error: errorInput(e), loading: false });
    },
  );
  const tracked: Promise<void> = p.finally(() => {
    if (inflight === tracked) inflight = null;
  });
  inflight = tracked;
  return tracked;
}

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

const snapshot = () => state;

/** The setup state, asked for on mount and when the window gets the focus back. */
export function useSetupStatus(): SetupState & { reload: () => void } {
  const s = useSyncExternalStore(subscribe, snapshot, snapshot);
  useEffect(() => {
    void refreshSetup({ reuse: true });
    const onFocus = () => void refreshSetup({ reuse: true });
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, []);
  return { ...s, reload: () => void refreshSetup() };
}
