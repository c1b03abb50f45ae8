import { useCallback, useEffect, useRef, useState } from "react";
import { errorInput, type ErrorInput } from "./errors";

export interface AsyncState<T> {
  data: T | undefined;
  /** The failure with its code, status and field (ErrorBox words it); null while none. */
  error: ErrorInput | null;
  loading: boolean;
  reload: () => void;
  setData: (v: T) => void;
}

/** Runs fn whenever deps change; the latest answer wins. */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ErrorInput | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const my = ++seq.current;
    setLoading(true);
    setError(null);
    fn().then(
      (v) => {
        if (my !== seq.current) return;
        setData(v);
        setLoading(false);
      },
      (e) => {
        if (my !== seq.current) return;
        setError(errorInput(e));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload, setData };
}

/**
 * Saving what s shows (a Settings card): save(request) marks the card busy,
 * shows the answer in s and calls onSaved, or keeps the error for the card
 * to show; the card shows what was saved before until then.
 */
export function useSave<T>(s: AsyncState<T>, onSaved?: () => void) {
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const save = (request: Promise<T>) => {
    setBusy(true);
    setErr(null);
    request.then(
      (x) => {
        s.setData(x);
        onSaved?.();
        setBusy(false);
      },
      (e: unknown) => {
        setErr(e);
        setBusy(false);
      },
    );
  };
  return { busy, err, save };
}
