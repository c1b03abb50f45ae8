// Wire types of the HTTP API and the agent events, named as
// docs/protocol.md names them. Field names are the
// protocol's; do not rename them here.
//
// Every JSON body is generated from its Go type: the agent's events, the
// `result` object and the types they use (ToolCall, TurnResult,
// WorkingState, Usage, Extraction, Mention, the evidence, ...) and the
// metadata of thread messages (MessageData) in ./events.gen.ts; the HTTP
// API's requests and answers, the error codes (ErrorCode) and the desktop
// window's import events in ./api.gen.ts. Change them in Go and regenerate
// (see the top of each file), never here. This file re-exports them, with
// the names the components use where the generated one differs, and
// declares only the data view's selection, which becomes a query (rowQuery).

import type { ApproveBody, AskBody, ChatBody, DataStatus, DocumentInfo, ErrorResponse, PromptBody, SchemaExportQuery, SchemaRow, SchemaRows, SortOrder, TagBody, ThreadWithMessages } from "./api.gen";
import type { FieldEvidence } from "./events.gen";

export type * from "./events.gen";
export type * from "./api.gen";

/** Error body of every failed request: `{error, code, field?}`. */
export type ErrorBody = ErrorResponse;

export type DocumentStatus = DocumentInfo["status"];

/** The list of documents' answer, as GET /api/documents writes it. */
export type { DocumentList } from "./api.gen";

/** POST /api/documents. */
export type { UploadReport as UploadAnswer } from "./api.gen";

export type PromptInput = PromptBody;
export type TagInput = TagBody;
export type ChatRequest = ChatBody;
export type ApproveRequest = ApproveBody;
export type AskRequest = AskBody;
export type { ThreadWithMessages };

/** One document's latest extraction with a schema: a row of the data view. */
export type DataRow = SchemaRow;
/** GET /api/schemas/{schema_id}/rows. */
export type DataRows = SchemaRows;

/** x0, y0, x1, y1 as fractions (0..1) of the page's width and height, from the top left of the page as displayed. */
export type EvidenceBox = NonNullable<FieldEvidence["bbox"]>;

/** What the data view asks for: the same for rows and for an export. */
export interface DataQuery {
  /** A column path or "document_name"; "" for the server's order. */
  sort?: string;
  order?: SortOrder;
  /** Column path → text; empty texts are left out. */
  filters?: Record<string, string>;
  status?: DataStatus;
}

/** The query parameters that select a data view's rows, in the rows route and the export alike. */
export type RowQuery = Pick<SchemaExportQuery, "sort" | "order" | "filter" | "status">;

/** The query parameters of a data view's selection: sort, order, status and one `filter=PATH:TEXT` per filtered column. */
export function rowQuery(q: DataQuery): RowQuery {
  const filter = Object.entries(q.filters ?? {})
    .filter(([, text]) => text.trim())
    .map(([path, text]) => `${path}:${text.trim()}`);
  return {
    ...(q.sort ? { sort: q.sort, order: q.order ?? "asc" } : {}),
    ...(filter.length ? { filter } : {}),
    ...(q.status ? { status: q.status } : {}),
  };
}
