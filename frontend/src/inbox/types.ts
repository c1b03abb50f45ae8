// The inbox's wire types (GET/PUT /api/settings/inbox, GET /api/inbox, the
// library's event stream), generated from Go in api.gen.ts, under the
// names the inbox's components use.

import type { DocumentInfo, InboxFile, RowEvent, Settings } from "../api/types";

export type { InboxActivity, InboxFile, InboxSettingsBody, RowEvent } from "../api/types";

/** GET/PUT /api/settings/inbox (Go's inbox.Settings). */
export type InboxSettings = Settings;
/** What the inbox does with a file once its document is stored. */
export type InboxAfter = Settings["after"];
/** When the folder is polled instead of watched with notifications. */
export type InboxPoll = Settings["poll"];
/** Where the inbox stands with a file. */
export type InboxFileStatus = InboxFile["status"];
/** A stored file's document's place in the pipeline. */
export type InboxStage = NonNullable<InboxFile["stage"]>;

/** One event of GET /api/documents/events. */
export type LibraryEvent =
  | { type: "document"; document: DocumentInfo }
  | { type: "row"; row: RowEvent }
  | { type: "inbox"; file: InboxFile };
