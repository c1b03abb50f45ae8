// The inbox's wire types, as /work/prompts' contract of issue #34 and
// docs/protocol.md name them (GET/PUT /api/settings/inbox, GET /api/inbox,
// the library's event stream). Declared here until app/server/wire.go
// lists them and api.gen.ts carries the generated ones.

import type { DocumentInfo } from "../api/types";

/** What the inbox does with a file once its document is stored. */
export type InboxAfter = "keep" | "move" | "delete";
/** When the folder is polled instead of watched with notifications. */
export type InboxPoll = "auto" | "always" | "never";

/** GET/PUT /api/settings/inbox. */
export interface InboxSettings {
  /** The watched folder; "" = no inbox. */
  folder: string;
  after: InboxAfter;
  /** Where "move" puts files; "" = <folder>/.docent-done. */
  done_folder: string;
  /** Subfolder names become tags (travel/2024/x.pdf → travel, 2024). */
  tag_subfolders: boolean;
  /** Glob patterns ignored on top of the built-in ones. */
  ignore: string[];
  /** A file is taken once its size and mtime stayed the same this long. */
  stability_seconds: number;
  poll: InboxPoll;
  /** Read only: "flag" when `--serve --inbox DIR` set the folder (not editable then), "settings", "none". */
  source: "flag" | "settings" | "none";
}

/** The body of PUT /api/settings/inbox: a member left out is unchanged. */
export type InboxSettingsBody = Partial<Omit<InboxSettings, "source">>;

/** Where the inbox stands with a file. */
export type InboxFileStatus = "waiting" | "stored" | "duplicate" | "failed";

/** A stored file's document's place in the pipeline. */
export type InboxStage = "stored" | "reading" | "embedding" | "extracting" | "done" | "needs_password" | "waiting_for_model" | "failed";

/** One file the inbox has seen (GET /api/inbox, and the `inbox` event). */
export interface InboxFile {
  path: string;
  /** The path under the inbox folder. */
  rel: string;
  size: number;
  modified: string;
  sha256?: string;
  status: InboxFileStatus;
  /** Why it failed (status failed). */
  error?: string;
  error_code?: string;
  document_id?: string;
  /** The document that already had these bytes (status duplicate). */
  duplicate_of?: string;
  stage?: InboxStage;
  document_name?: string;
  /** The kind's schema id. */
  kind?: string;
  kind_name?: string;
  extraction_id?: string;
  tags?: string[];
  updated_at?: string;
}

/** GET /api/inbox. */
export interface InboxActivity {
  /** "" when no inbox folder is set. */
  folder: string;
  watching: boolean;
  polling: boolean;
  /** What is wrong with the folder (gone, unreadable); absent when fine. */
  error?: string;
  /** Newest first. */
  files: InboxFile[];
}

/** The data of a `row` event: an extraction was stored, so a row appears in its schema's table. */
export interface RowEvent {
  document_id: string;
  schema_id: string;
  extraction_id: string;
}

/** One event of GET /api/documents/events. */
export type LibraryEvent =
  | { type: "document"; document: DocumentInfo }
  | { type: "row"; row: RowEvent }
  | { type: "inbox"; file: InboxFile };
