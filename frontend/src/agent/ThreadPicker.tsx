import { useState } from "react";
import type { Thread } from "../api/types";
import { formatDate } from "../components/common";

export function groupThreads(threads: Thread[], now = new Date()): [string, Thread[]][] {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const day = 86_400_000;
  const groups: Record<string, Thread[]> = { Today: [], Yesterday: [], "This week": [], Older: [] };
  const sorted = [...threads].sort((a, b) => (b.updated_at ?? "").localeCompare(a.updated_at ?? ""));
  for (const t of sorted) {
    const at = new Date(t.updated_at || t.created_at).getTime();
    const g = at >= start ? "Today" : at >= start - day ? "Yesterday" : at >= start - 6 * day ? "This week" : "Older";
    groups[g].push(t);
  }
  return Object.entries(groups).filter(([, ts]) => ts.length > 0);
}

export interface ThreadPickerProps {
  threads: Thread[];
  current: string | null;
  disabled: boolean;
  onSelect(id: string | null): void;
  onRename(id: string, title: string): Promise<void>;
  onDelete(id: string): Promise<void>;
  /** Without the menu of threads and New (a page that lists its threads itself): Rename and Delete of the current one. */
  actionsOnly?: boolean;
}

export function ThreadPicker({ threads, current, disabled, onSelect, onRename, onDelete, actionsOnly }: ThreadPickerProps) {
  const [mode, setMode] = useState<"none" | "rename" | "delete">("none");
  const [title, setTitle] = useState("");
  const [error, setError] = useState<string | null>(null);
  const cur = threads.find((t) => t.thread_id === current);
  // An untitled thread is named by when it started, not by its id.
  const label = (t: Thread) => t.title || `Conversation of ${formatDate(t.created_at) || "an unknown date"}`;

  if (mode === "rename" && cur) {
    return (
      <form
        className="thread-picker"
        onSubmit={(e) => {
          e.preventDefault();
          onRename(cur.thread_id, title.trim()).then(
            () => setMode("none"),
            (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
          );
        }}
      >
        <input value={title} onChange={(e) => setTitle(e.target.value)} autoFocus aria-label="Conversation title" data-testid="thread-title-input" />
        <button type="submit" className="btn small primary" disabled={!title.trim()}>
          Save
        </button>
        <button type="button" className="btn small" onClick={() => setMode("none")}>
          Cancel
        </button>
        {error && <span className="field-error">{error}</span>}
      </form>
    );
  }
  if (mode === "delete" && cur) {
    return (
      <div className="thread-picker">
        <span>Delete “{label(cur)}”?</span>
        <button
          type="button"
          className="btn small danger"
          data-testid="thread-delete-confirm"
          onClick={() => onDelete(cur.thread_id).then(() => setMode("none"), (err: unknown) => setError(String(err)))}
        >
          Delete
        </button>
        <button type="button" className="btn small" onClick={() => setMode("none")}>
          Cancel
        </button>
        {error && <span className="field-error">{error}</span>}
      </div>
    );
  }
  return (
    <div className="thread-picker">
      {!actionsOnly && (
        <>
          <select
            value={current ?? ""}
            disabled={disabled}
            onChange={(e) => onSelect(e.target.value || null)}
            data-testid="thread-select"
            aria-label="Conversation"
          >
            <option value="">New conversation</option>
            {current && !cur && <option value={current}>Current conversation</option>}
            {groupThreads(threads).map(([g, ts]) => (
              <optgroup key={g} label={g}>
                {ts.map((t) => (
                  <option key={t.thread_id} value={t.thread_id}>
                    {label(t)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <button type="button" className="btn small" disabled={disabled || !current} onClick={() => onSelect(null)} data-testid="thread-new" title="New conversation">
            New
          </button>
        </>
      )}
      <button
        type="button"
        className="btn small"
        disabled={disabled || !cur}
        onClick={() => {
          setTitle(cur ? label(cur) : "");
          setError(null);
          setMode("rename");
        }}
        data-testid="thread-rename"
      >
        Rename
      </button>
      <button type="button" className="btn small" disabled={disabled || !cur} onClick={() => { setError(null); setMode("delete"); }} data-testid="thread-delete">
        Delete
      </button>
    </div>
  );
}
