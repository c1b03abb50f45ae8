// The "Inbox folder" card of Settings (GET/PUT /api/settings/inbox): the
// folder Docent watches, what happens to a file once its document is
// stored, subfolder tags, extra ignore patterns, the stability delay and
// polling. Read-only when `docent --serve --inbox DIR` set the folder (the
// flag wins). A refused value's error shows on its field.

import { useState, type ReactNode } from "react";
import { api } from "../api/routes.gen";
import { ErrorBox, RichText } from "../components/common";
import { errorInput, type ErrorInput } from "../lib/errors";
import { useAsync } from "../lib/useAsync";
import { errorField, formOf, inboxBody, type InboxField, type InboxForm } from "./inbox";
import type { InboxAfter, InboxPoll, InboxSettings } from "./types";
import "./inbox.css";

/** A save's failure: the field it is about ("" for the whole form) and the error. */
export interface InboxSaveError {
  field: InboxField | "";
  error: ErrorInput;
}

/** Saves the form: what the server stored, or the field that was refused and why (nothing is sent when the form cannot be). */
export async function saveInbox(form: InboxForm): Promise<{ settings: InboxSettings } | InboxSaveError> {
  const b = inboxBody(form);
  if ("field" in b) return { field: b.field, error: { message: b.error, code: "invalid" } };
  try {
    return { settings: await api.putInboxSettings(b.body) };
  } catch (e) {
    const error = errorInput(e);
    return { field: errorField(error), error };
  }
}

const AFTER: [InboxAfter, string][] = [
  ["keep", "Keep it where it is"],
  ["move", "Move it to a done folder"],
  ["delete", "Delete it (only once its document is safely stored)"],
];

const POLL: [InboxPoll, string][] = [
  ["auto", "Automatically: on network folders, or when change notifications fail"],
  ["always", "Always poll the folder"],
  ["never", "Never poll: change notifications only"],
];

export interface InboxSettingsViewProps {
  settings: InboxSettings;
  form: InboxForm;
  error: InboxSaveError | null;
  busy: boolean;
  /** The last save went through. */
  saved: boolean;
  onEdit: (patch: Partial<InboxForm>) => void;
  onSave: (form: InboxForm) => void;
}

export function InboxSettingsView({ settings, form, error, busy, saved, onEdit, onSave }: InboxSettingsViewProps) {
  const locked = settings.source === "flag";
  const errorId = (f: InboxField) => `inbox-error-${f}`;
  /** The attributes that tie a field to its help and, when refused, its error. */
  const described = (f: InboxField, help?: string) => {
    const ids = [help, error?.field === f ? errorId(f) : undefined].filter(Boolean).join(" ");
    return { "aria-describedby": ids || undefined, "aria-invalid": error?.field === f ? true : undefined };
  };
  const fieldError = (f: InboxField): ReactNode =>
    error?.field === f && (
      <span className="field-error" id={errorId(f)} role="alert" data-testid="inbox-field-error">
        <RichText text={error.error.message} />
      </span>
    );
  return (
    <section className="card inbox-settings" data-testid="inbox-settings" aria-labelledby="inbox-settings-title">
      <h2 id="inbox-settings-title">Inbox folder</h2>
      <p className="muted">
        Files put in this folder are imported by themselves once they stop changing: the scanner&apos;s output folder, Downloads, a synced
        folder of mail attachments. See them arrive on the <a href="#/inbox">Inbox</a> page.
      </p>
      {locked && (
        <p className="note" data-testid="inbox-settings-flag">
          Set by <code>docent --serve --inbox DIR</code> when Docent started; the flag wins over this setting. Start Docent without{" "}
          <code>--inbox</code> to change it here.
        </p>
      )}
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          onSave(form);
        }}
      >
        <label>
          Inbox folder
          <input
            value={form.folder}
            disabled={locked}
            onChange={(e) => onEdit({ folder: e.target.value })}
            placeholder="/home/me/Scans"
            spellCheck={false}
            data-testid="inbox-folder"
            {...described("folder", "inbox-folder-help")}
          />
          <span className="muted small-text" id="inbox-folder-help">
            The full path of a folder on this computer. Empty: no inbox.
          </span>
          {fieldError("folder")}
        </label>
        <fieldset disabled={locked} aria-describedby={error?.field === "after" ? errorId("after") : undefined}>
          <legend>After a file is imported</legend>
          {AFTER.map(([v, label]) => (
            <label key={v} className="check">
              <input type="radio" name="inbox-after" checked={form.after === v} disabled={locked} onChange={() => onEdit({ after: v })} data-testid={`inbox-after-${v}`} />
              {label}
            </label>
          ))}
          {fieldError("after")}
        </fieldset>
        <label>
          Done folder
          <input
            value={form.done_folder}
            disabled={locked || form.after !== "move"}
            onChange={(e) => onEdit({ done_folder: e.target.value })}
            placeholder={`${form.folder.trim() || "<folder>"}/.docent-done`}
            spellCheck={false}
            data-testid="inbox-done-folder"
            {...described("done_folder", "inbox-done-help")}
          />
          <span className="muted small-text" id="inbox-done-help">
            Where moved files go. Empty: a hidden <code>.docent-done</code> folder inside the inbox, which is never read again.
          </span>
          {fieldError("done_folder")}
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.tag_subfolders}
            disabled={locked}
            onChange={(e) => onEdit({ tag_subfolders: e.target.checked })}
            data-testid="inbox-tag-subfolders"
            {...described("tag_subfolders")}
          />
          Tag documents with the names of their subfolders (travel/2024/x.pdf gets the tags travel and 2024)
        </label>
        {fieldError("tag_subfolders")}
        <label>
          Also ignore
          <textarea
            value={form.ignore}
            disabled={locked}
            rows={3}
            onChange={(e) => onEdit({ ignore: e.target.value })}
            placeholder="*.bak"
            spellCheck={false}
            data-testid="inbox-ignore"
            {...described("ignore", "inbox-ignore-help")}
          />
          <span className="muted small-text" id="inbox-ignore-help">
            One pattern a line, such as <code>*.bak</code>. Hidden files and partial downloads (<code>*.part</code>, <code>*.crdownload</code>,{" "}
            <code>*.tmp</code>, <code>~$*</code>) are always ignored.
          </span>
          {fieldError("ignore")}
        </label>
        <label>
          Stability delay (seconds)
          <input
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={form.stability_seconds}
            disabled={locked}
            onChange={(e) => onEdit({ stability_seconds: e.target.value })}
            data-testid="inbox-stability"
            {...described("stability_seconds", "inbox-stability-help")}
          />
          <span className="muted small-text" id="inbox-stability-help">
            A file is taken once its size and time have not changed for this long, so a half-written scan is never read.
          </span>
          {fieldError("stability_seconds")}
        </label>
        <label>
          Polling
          <select value={form.poll} disabled={locked} onChange={(e) => onEdit({ poll: e.target.value as InboxPoll })} data-testid="inbox-poll" {...described("poll")}>
            {POLL.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          {fieldError("poll")}
        </label>
        <div className="row">
          <button type="submit" className="btn primary" disabled={locked || busy} data-testid="inbox-save">
            Save
          </button>
          {!locked && settings.folder && (
            <button type="button" className="btn" disabled={busy} onClick={() => onSave({ ...form, folder: "" })} data-testid="inbox-stop">
              Stop watching
            </button>
          )}
          {saved && (
            <span className="muted" role="status" data-testid="inbox-saved">
              Saved.
            </span>
          )}
        </div>
        {error && error.field === "" && <ErrorBox title="Not saved" error={error.error} testid="inbox-save-error" />}
      </form>
    </section>
  );
}

export function InboxSettingsCard() {
  const s = useAsync(api.getInboxSettings, []);
  const [typed, setTyped] = useState<InboxForm | null>(null);
  const [error, setError] = useState<InboxSaveError | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  if (!s.data) return s.error ? <ErrorBox title="Could not load the inbox settings" error={s.error} onRetry={s.reload} /> : null;
  const form = typed ?? formOf(s.data);
  const save = async (f: InboxForm) => {
    setBusy(true);
    setSaved(false);
    setError(null);
    const got = await saveInbox(f);
    setBusy(false);
    if ("settings" in got) {
      s.setData(got.settings);
      setTyped(null);
      setSaved(true);
    } else {
      setError(got);
    }
  };
  return (
    <InboxSettingsView
      settings={s.data}
      form={form}
      error={error}
      busy={busy}
      saved={saved}
      onEdit={(p) => {
        setTyped({ ...form, ...p });
        setSaved(false);
      }}
      onSave={(f) => void save(f)}
    />
  );
}
