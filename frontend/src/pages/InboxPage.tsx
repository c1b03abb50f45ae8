// The Inbox page (#/inbox): the inbox folder, whether it is watched or
// polled (or what is wrong with it), and each file the inbox has seen with
// its stage, its kind and links to what it made. It follows the library's
// event stream (inbox/feed.ts), so files appear and move on without a
// reload.

import { useEffect, useState, useSyncExternalStore } from "react";
import { ErrorBox, ErrorNote, formatBytes, formatDate, Spinner } from "../components/common";
import { InboxFeed } from "../inbox/feed";
import { fileState, folderState, resultLinks } from "../inbox/inbox";
import type { InboxActivity, InboxFile } from "../inbox/types";
import { useTitle } from "../lib/useTitle";
import "../inbox/inbox.css";

function FileRow({ f }: { f: InboxFile }) {
  const st = fileState(f);
  const links = resultLinks(f);
  return (
    <tr data-testid="inbox-file" data-status={f.status} data-stage={f.stage ?? ""} data-rel={f.rel} data-document-id={f.document_id ?? f.duplicate_of ?? ""}>
      <th scope="row">
        <span className="inbox-rel" title={f.path}>
          {f.rel}
        </span>
        <span className="muted small-text inbox-meta">
          {formatBytes(f.size)}, {formatDate(f.updated_at || f.modified)}
          {f.tags && f.tags.length > 0 && <> · tags {f.tags.join(", ")}</>}
        </span>
      </th>
      <td>
        <span className={`badge tone-${st.tone}`} data-testid="inbox-stage">
          {st.label}
        </span>
        {f.error && <ErrorNote error={{ message: f.error, code: f.error_code }} className="inbox-error" testid="inbox-error" />}
        {st.hint && <span className="muted small-text inbox-hint">{st.hint}</span>}
      </td>
      <td data-testid="inbox-kind">{f.kind_name || <span className="muted">—</span>}</td>
      <td>
        {links.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <ul className="inbox-links">
            {links.map((l) => (
              <li key={l.testid}>
                <a href={l.href} data-testid={l.testid}>
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

/** The page's content for an activity; `live` says whether the stream serves or the list is polled. */
export function InboxView({ activity, live }: { activity: InboxActivity; live: "live" | "polling" }) {
  const folder = folderState(activity);
  return (
    <>
      <section className="card" aria-labelledby="inbox-folder-title">
        <h2 id="inbox-folder-title">Folder</h2>
        <p className={`inbox-folder tone-${folder.tone}`} data-testid="inbox-folder-state" role={folder.tone === "err" ? "alert" : "status"}>
          {folder.text}
        </p>
        <p className="muted small-text">
          {activity.folder ? "Choose another folder, or what happens to files once imported, in " : "Set the folder Docent watches in "}
          <a href="#/settings" data-testid="inbox-settings-link">
            Settings
          </a>
          {activity.folder ? "." : ", or start Docent with "}
          {!activity.folder && (
            <>
              <code>docent --serve --inbox DIR</code>.
            </>
          )}
        </p>
        {live === "polling" && (
          <p className="muted small-text" data-testid="inbox-polling-note">
            This list is asked for every few seconds.
          </p>
        )}
      </section>
      <section className="card" aria-labelledby="inbox-files-title">
        <h2 id="inbox-files-title">Files</h2>
        {activity.files.length === 0 ? (
          <p className="muted" data-testid="inbox-empty">
            No files yet. A file put in the folder is imported once it stops changing.
          </p>
        ) : (
          <div className="field-table-scroll">
            <table className="field-table inbox-table" data-testid="inbox-files">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Stage</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {activity.files.map((f) => (
                  <FileRow key={f.path} f={f} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

export default function InboxPage() {
  useTitle("Inbox");
  const [feed] = useState(() => new InboxFeed());
  useSyncExternalStore(feed.subscribe, feed.getVersion, feed.getVersion);
  useEffect(() => feed.start(), [feed]);
  return (
    <div className="page inbox-page" data-testid="inbox-page">
      <div className="page-head">
        <h1>Inbox</h1>
      </div>
      <p className="muted">
        Files put in the inbox folder are imported by themselves: their text is read, their kind recognised and their row extracted. Each
        subfolder&apos;s name can become a tag.
      </p>
      {!feed.activity && !feed.error && <Spinner label="Loading the inbox…" />}
      {feed.error && <ErrorBox title="Could not load the inbox" error={feed.error} onRetry={() => feed.reload()} />}
      {feed.activity && <InboxView activity={feed.activity} live={feed.live} />}
    </div>
  );
}
