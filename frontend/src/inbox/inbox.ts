// What the Inbox page and the Settings card say, without React: a file's
// stage in words (and a tone that only repeats them), the links to what it
// made, how an event changes the list, and the settings form's body.

import { href } from "../lib/router";
import type { ErrorInput } from "../lib/errors";
import type { InboxActivity, InboxAfter, InboxFile, InboxPoll, InboxSettings, InboxSettingsBody, InboxStage } from "./types";

/** How a state looks; the words always say it too (colour is never the only sign). */
export type Tone = "ok" | "busy" | "warn" | "err" | "muted";

export interface FileState {
  label: string;
  tone: Tone;
  /** What it means or what to do, where that is not obvious. */
  hint?: string;
}

const STAGES: Record<InboxStage, FileState> = {
  stored: { label: "Stored", tone: "busy" },
  reading: { label: "Reading the text", tone: "busy" },
  embedding: { label: "Embedding for search", tone: "busy" },
  extracting: { label: "Extracting", tone: "busy" },
  done: { label: "Done", tone: "ok" },
  needs_password: { label: "Needs a password", tone: "warn", hint: "The PDF is encrypted: open the document and give its password." },
  waiting_for_model: { label: "Waiting for the model", tone: "warn", hint: "The model did not answer; the extraction runs once it does." },
  failed: { label: "Failed", tone: "err", hint: "Open the document to see why." },
};

/** A file's place, from its inbox status and, once stored, its document's stage. */
export function fileState(f: InboxFile): FileState {
  // An encrypted PDF fails to be read but is stored, waiting for its password: that is for the person to act on, not a failure.
  if (f.stage === "needs_password") return STAGES.needs_password;
  switch (f.status) {
    case "waiting":
      return { label: "Waiting for the file to settle", tone: "busy", hint: "Taken once its size and time stop changing." };
    case "duplicate":
      return { label: "Duplicate", tone: "muted", hint: "The same bytes are already in Docent; not imported again." };
    case "failed":
      return { label: "Failed", tone: "err", hint: "It is tried again when the file changes." };
    default:
      return STAGES[f.stage ?? "stored"] ?? STAGES.stored;
  }
}

export interface ResultLink {
  href: string;
  label: string;
  testid: string;
}

/** Where a file's results are: its document, its row in its kind's table, or the original it duplicates. */
export function resultLinks(f: InboxFile): ResultLink[] {
  if (f.status === "duplicate" && f.duplicate_of) {
    return [{ href: href("documents", f.duplicate_of), label: "The original", testid: "inbox-original-link" }];
  }
  const links: ResultLink[] = [];
  if (f.document_id) links.push({ href: href("documents", f.document_id), label: f.document_name || "The document", testid: "inbox-document-link" });
  if (f.kind && f.extraction_id) links.push({ href: href("data", f.kind), label: `Row in ${f.kind_name || "its kind"}`, testid: "inbox-row-link" });
  return links;
}

/** The most files the page keeps (GET /api/inbox?limit=). */
export const FILE_LIMIT = 200;

/** The list after an `inbox` event: the file of the same path replaced where it is, a new one first (newest first). */
export function mergeFile(files: InboxFile[], f: InboxFile, limit = FILE_LIMIT): InboxFile[] {
  const i = files.findIndex((x) => x.path === f.path);
  if (i >= 0) return files.map((x, j) => (j === i ? f : x));
  return [f, ...files].slice(0, limit);
}

/** What the page says of the folder. */
export function folderState(a: InboxActivity): { text: string; tone: Tone } {
  if (!a.folder) return { text: "No inbox folder is set.", tone: "muted" };
  if (a.error) return { text: a.error, tone: "err" };
  if (a.polling) return { text: `Checking ${a.folder} for new files every few seconds (polling: notifications do not work there).`, tone: "ok" };
  if (a.watching) return { text: `Watching ${a.folder} for new files.`, tone: "ok" };
  return { text: `${a.folder} is not watched right now.`, tone: "warn" };
}

/** The settings form as typed. */
export interface InboxForm {
  folder: string;
  after: InboxAfter;
  done_folder: string;
  tag_subfolders: boolean;
  /** One pattern a line. */
  ignore: string;
  stability_seconds: string;
  poll: InboxPoll;
}

export type InboxField = keyof InboxForm;

export function formOf(s: InboxSettings): InboxForm {
  return {
    folder: s.folder,
    after: s.after,
    done_folder: s.done_folder,
    tag_subfolders: s.tag_subfolders,
    ignore: (s.ignore ?? []).join("\n"),
    stability_seconds: String(s.stability_seconds),
    poll: s.poll,
  };
}

/** The PUT body of the form, or the field that cannot be sent and why. */
export function inboxBody(f: InboxForm): { body: InboxSettingsBody } | { field: InboxField; error: string } {
  const typed = f.stability_seconds.trim();
  const seconds = Number(typed);
  if (!typed || !Number.isFinite(seconds) || seconds < 0) {
    return { field: "stability_seconds", error: `stability seconds "${typed}": want a number of seconds, 0 or more` };
  }
  return {
    body: {
      folder: f.folder.trim(),
      after: f.after,
      done_folder: f.done_folder.trim(),
      tag_subfolders: f.tag_subfolders,
      ignore: f.ignore
        .split("\n")
        .map((p) => p.trim())
        .filter(Boolean),
      stability_seconds: seconds,
      poll: f.poll,
    },
  };
}

// Longest first: "done_folder" must win over "folder".
const FIELDS: InboxField[] = ["stability_seconds", "tag_subfolders", "done_folder", "folder", "after", "ignore", "poll"];

/** The form field a refused save is about: the server's `field`, else the first field its message names; "" for the whole form. */
export function errorField(e: ErrorInput): InboxField | "" {
  const named = (e.field ?? "").replace(/\[.*$/, "").replace(/\..*$/, "");
  if ((FIELDS as string[]).includes(named)) return named as InboxField;
  for (const f of FIELDS) {
    if (new RegExp(`(^|[^a-z_])${f}([^a-z_]|$)`).test(e.message)) return f;
  }
  return "";
}
