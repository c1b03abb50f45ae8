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
