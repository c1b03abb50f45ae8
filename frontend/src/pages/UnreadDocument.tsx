// What a document page shows instead of the viewer and the agent when
// there is nothing to read: a file that failed (with what can help: its
// password, or another copy), or one whose text OCR has not read yet.

import { useState } from "react";
import { api, readWithPassword } from "../api/routes.gen";
import type { DocumentInfo } from "../api/types";
import { ErrorBox } from "../components/common";

/** Whether a failed document needs its password: the server's code says so, not the error's words. */
export function needsPassword(doc: Pick<DocumentInfo, "error_code">): boolean {
  return doc.error_code === "password_required";
}

export function FailedDocument({ doc, onRead }: { doc: DocumentInfo; onRead(): void }) {
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  const locked = needsPassword(doc);
  return (
    <div className="unread-document" role="status" data-testid="document-failed">
      <h2>Docent could not read this file</h2>
      <p>{doc.error || "The file could not be read."}</p>
      {locked ? (
        <form
          className="password-form"
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            setErr(null);
            readWithPassword(doc.id, { password }).then(
              () => {
                setBusy(false);
                onRead();
              },
              (x: unknown) => {
                setBusy(false);
                setErr(x);
              },
            );
          }}
        >
          <label>
            Its password{" "}
            <input type="password" autoComplete="off" value={password} onChange={(e) => setPassword(e.target.value)} data-testid="document-password" />
          </label>{" "}
          <button type="submit" className="btn primary small" disabled={busy || !password} data-testid="document-password-submit">
            {busy ? "Reading…" : "Read it"}
          </button>
          {err !== null && <ErrorBox title="Not read" error={err} />}
        </form>
      ) : (
        <p className="muted">
          Nothing in it can be shown or asked about. Import a repaired copy of the file, or delete this document from the documents list.
        </p>
      )}
      <p className="muted">
        <a href={api.documentFileURL(doc.id)} target="_blank" rel="noreferrer">
          Open the original file
        </a>
      </p>
    </div>
  );
}

/** The agent's place while OCR has not read the document yet. */
export function WaitingForText({ doc }: { doc: DocumentInfo }) {
  return (
    <div className="unread-document" role="status" data-testid="document-waiting-text">
      <h2>{doc.status === "ocr" ? "Reading the text…" : "No text yet"}</h2>
      <p>
        {doc.status === "ocr"
          ? "OCR is reading this document's pages; the agent and extraction open when it is done."
          : "This document's pages are images. The agent and extraction open once OCR has read them (see above)."}
      </p>
    </div>
  );
}
