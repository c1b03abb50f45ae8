// The history's settings: how long what undo needs is kept (a deleted
// document's bytes among it), how much the history holds and the store's
// size on disk, and emptying it (GET/PUT /api/history/settings, DELETE
// /api/history).

import { useState } from "react";
import { api } from "../api/routes.gen";
import { ErrorBox } from "../components/common";
import { formatBytes, formatCount } from "../lib/format";
import { href } from "../lib/router";
import { useAsync, useSave } from "../lib/useAsync";

export function HistorySettings() {
  const s = useAsync(api.getHistorySettings, []);
  const [typed, setTyped] = useState<string | null>(null);
  const { busy, err, save: act } = useSave(s, () => setTyped(null));
  if (!s.data) return s.error ? <ErrorBox error={s.error} onRetry={s.reload} /> : null;
  const d = s.data;
  const value = typed ?? String(d.retention_days);
  return (
    <section className="card" data-testid="history-settings">
      <h2>History</h2>
      <p className="muted">
        The <a href={href("history")}>history</a> holds{" "}
        <strong data-testid="history-size">
          {formatCount(d.entries)} {d.entries === 1 ? "change" : "changes"}, {formatBytes(d.bytes)}
        </strong>{" "}
        kept for undo (deleted documents&apos; files among it). The store takes{" "}
        <strong data-testid="store-size">{formatBytes(d.file_bytes)}</strong> on disk.
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          act(api.putHistorySettings({ retention_days: Number(value) }));
        }}
      >
        <label>
          Keep for{" "}
          <input type="number" min={1} max={3650} value={value} onChange={(e) => setTyped(e.target.value)} data-testid="history-retention" />{" "}
          days
        </label>
        <button type="submit" className="btn small primary" disabled={busy}>
          Save
        </button>
        <button
          type="button"
          className="btn small danger"
          disabled={busy || d.entries === 0}
          onClick={() => {
            if (window.confirm("Empty the history? Nothing in it can be undone afterwards.")) act(api.emptyHistory());
          }}
          data-testid="history-empty"
        >
          Empty the history
        </button>
      </form>
      {err !== null && <ErrorBox title="Not saved" error={err} />}
    </section>
  );
}
