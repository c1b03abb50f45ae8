// Typed helpers for the routes of docs/protocol.md's HTTP API. The chat
// and approve streams are in transport.ts; uploads (which need progress) in
// upload.ts.

import { listOf, request } from "./http";
import type {
  AcceptReport,
  DataQuery,
  DocumentPatch,
  HealthResponse,
  HistoryList,
  HistorySettings,
  UndoResult,
  UsageReport,
  UsageStatus,
  RerunReport,
  SchemaBody,
  SearchResult,
  SearchStatus,
  ThreadCreated,
  DataRows,
  DocumentInfo,
  DocumentSort,
  SortOrder,
  DocumentList,
  DocumentText,
  Extraction,
  KindChanged,
  ModelList,
  PromptInput,
  PromptRevision,
  ResponseFormat,
  SchemaRevision,
  McpSettings,
  McpSettingsBody,
  OcrSettings,
  OcrSettingsBody,
  ServerSettings,
  Summary,
  SettingsPatch,
  SettingsTest,
  Tag,
  TagInput,
  Thread,
  ThreadWithMessages,
  ToolList,
  TurnResult,
  ChatRequest,
  ApproveRequest,
} from "./types";
import type { AutoCreateEstimate, LimitsBody, PriceOverride, UsagePrices } from "../usage/wire";
import type { InboxActivity, InboxSettings, InboxSettingsBody } from "../inbox/types";

const enc = encodeURIComponent;

/**
 * The query string of a data view's rows or export: sort, order, status and
 * one `filter=PATH:TEXT` per filtered column (repeated, which withQuery
 * cannot say), then the extra parameters.
 */
export function dataQueryString(q: DataQuery, extra: Record<string, string | number | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== "") p.set(k, String(v));
  if (q.sort) {
    p.set("sort", q.sort);
    p.set("order", q.order ?? "asc");
  }
  for (const [path, text] of Object.entries(q.filters ?? {})) {
    if (text.trim()) p.append("filter", `${path}:${text.trim()}`);
  }
  if (q.status) p.set("status", q.status);
  return p.toString();
}

export const api = {
  health: () => request<HealthResponse>("/api/health"),

  // documents
  listDocuments: (
    q: { q?: string; tag_id?: string; limit?: number; offset?: number; sort?: DocumentSort; order?: SortOrder },
    signal?: AbortSignal,
  ) =>
    request<DocumentList>("/api/documents", { query: q, signal }),
  getDocument: (id: string) => request<DocumentInfo>(`/api/documents/${enc(id)}`),
  updateDocument: (id: string, body: DocumentPatch) =>
    request<DocumentInfo>(`/api/documents/${enc(id)}`, { method: "PATCH", body }),
  deleteDocument: (id: string) => request<unknown>(`/api/documents/${enc(id)}`, { method: "DELETE" }),
  documentFileURL: (id: string) => `/api/documents/${enc(id)}/file`,
  documentText: (id: string, page?: number) =>
    request<DocumentText>(`/api/documents/${enc(id)}/text`, { query: { page } }),
  /** Moves a document to another kind (a schema id; "" clears it); the server extracts it again with the kind's prompt (the one a person made or accepted). */
  setDocumentKind: (id: string, schema_id: string) =>
    request<KindChanged>(`/api/documents/${enc(id)}/kind`, { method: "PUT", body: { schema_id } }),

  // schemas
  listSchemas: async () => listOf<SchemaRevision>(await request<unknown>("/api/schemas"), "schemas"),
  getSchema: (id: string) => request<SchemaRevision>(`/api/schemas/${enc(id)}`),
  createSchema: (body: SchemaBody & { name: string; response_format: ResponseFormat }) =>
    request<SchemaRevision>("/api/schemas", { method: "POST", body }),
  updateSchema: (id: string, body: SchemaBody & { name: string; response_format: ResponseFormat }) =>
    request<SchemaRevision>(`/api/schemas/${enc(id)}`, { method: "PUT", body }),
  deleteSchema: (id: string) => request<unknown>(`/api/schemas/${enc(id)}`, { method: "DELETE" }),
  /** The data view: one row per document whose latest extraction used the schema. */
  schemaRows: (schemaId: string, q: DataQuery, offset: number, limit: number, signal?: AbortSignal) =>
    request<DataRows>(`/api/schemas/${enc(schemaId)}/rows?${dataQueryString(q, { offset, limit })}`, { signal }),
  /** Runs the documents' extraction again with the schema's prompt. */
  rerunSchema: (schemaId: string, document_ids: string[]) =>
    request<RerunReport>(`/api/schemas/${enc(schemaId)}/rerun`, { method: "POST", body: { document_ids } }),
  /** Where the table of a schema downloads from, with the data view's filters. */
  schemaExportURL: (schemaId: string, format: "csv" | "xlsx" | "json", q: DataQuery) =>
    `/api/schemas/${enc(schemaId)}/export?${dataQueryString(q, { format })}`,
  getSchemaRevision: (revid: string) => request<SchemaRevision>(`/api/schema-revisions/${enc(revid)}`),
  /** The revisions of one schema (docs/protocol.md). */
  listSchemaRevisions: async (id: string) =>
    listOf<SchemaRevision>(await request<unknown>(`/api/schemas/${enc(id)}/revisions`), "revisions"),

  // prompts
  listPrompts: async () => listOf<PromptRevision>(await request<unknown>("/api/prompts"), "prompts"),
  getPrompt: (id: string) => request<PromptRevision>(`/api/prompts/${enc(id)}`),
  createPrompt: (body: PromptInput) => request<PromptRevision>("/api/prompts", { method: "POST", body }),
  updatePrompt: (id: string, body: PromptInput) =>
    request<PromptRevision>(`/api/prompts/${enc(id)}`, { method: "PUT", body }),
  deletePrompt: (id: string) => request<unknown>(`/api/prompts/${enc(id)}`, { method: "DELETE" }),
  getPromptRevision: (revid: string) => request<PromptRevision>(`/api/prompt-revisions/${enc(revid)}`),
  /** The revisions of one prompt (docs/protocol.md). */
  listPromptRevisions: async (id: string) =>
    listOf<PromptRevision>(await request<unknown>(`/api/prompts/${enc(id)}/revisions`), "revisions"),

  // tags
  listTags: async () => listOf<Tag>(await request<unknown>("/api/tags"), "tags"),
  getTag: (id: string) => request<Tag>(`/api/tags/${enc(id)}`),
  createTag: (body: TagInput) => request<Tag>("/api/tags", { method: "POST", body }),
  updateTag: (id: string, body: Partial<TagInput>) => request<Tag>(`/api/tags/${enc(id)}`, { method: "PATCH", body }),
  deleteTag: (id: string) => request<unknown>(`/api/tags/${enc(id)}`, { method: "DELETE" }),

  // extractions
  listExtractions: async (docId: string) =>
    listOf<Extraction>(await request<unknown>(`/api/documents/${enc(docId)}/extractions`), "extractions"),
  runExtraction: (docId: string, prompt_revid: string) =>
    request<Extraction>(`/api/documents/${enc(docId)}/extractions`, { method: "POST", body: { prompt_revid } }),
  patchExtraction: (docId: string, extractionId: string, path: string, value: unknown) =>
    request<Extraction>(`/api/documents/${enc(docId)}/extractions/${enc(extractionId)}`, {
      method: "PATCH",
      body: { path, value },
    }),

  // search, models, tools
  /** Search every document's text: by words and meaning (by "both", the server's default with an embedding model set). */
  search: (q: string, opts: { limit?: number; tag?: string; kind?: string; by?: "words" | "meaning" | "both" } = {}) =>
    request<SearchResult>("/api/search", { query: { q, ...opts } }),
  /** How far the chunks (of one document) are embedded for search by meaning. */
  searchStatus: (documentId?: string) => request<SearchStatus>("/api/search/status", { query: { document_id: documentId } }),
  models: () => request<ModelList>("/api/models"),
  chatTools: () => request<ToolList>("/api/chat/tools"),
  /** What a call with these (edited) arguments would do, in the conversation of docId and threadId. */
  toolSummary: (tool: string, args: unknown, docId: string, threadId: string | null) =>
    request<Summary>(`/api/tools/${enc(tool)}/summary`, {
      method: "POST",
      body: { arguments: args, document_id: docId, ...(threadId ? { thread_id: threadId } : {}) },
    }),

  // chat without streaming (the streaming form is in transport.ts)
  chatOnce: (docId: string, body: ChatRequest) =>
    request<TurnResult>(`/api/documents/${enc(docId)}/chat`, { method: "POST", body: { ...body, stream: false } }),
  approveOnce: (docId: string, body: ApproveRequest) =>
    request<TurnResult>(`/api/documents/${enc(docId)}/chat/approve`, {
      method: "POST",
      body: { ...body, stream: false },
    }),

  // threads
  listThreads: async (docId: string) =>
    listOf<Thread>(await request<unknown>(`/api/documents/${enc(docId)}/chat/threads`), "threads"),
  createThread: (docId: string, title?: string) =>
    request<ThreadCreated>(`/api/documents/${enc(docId)}/chat/threads`, { method: "POST", body: { title } }),
  getThread: (docId: string, threadId: string) =>
    request<ThreadWithMessages>(`/api/documents/${enc(docId)}/chat/threads/${enc(threadId)}`),
  renameThread: (docId: string, threadId: string, title: string) =>
    request<Thread>(`/api/documents/${enc(docId)}/chat/threads/${enc(threadId)}`, { method: "PATCH", body: { title } }),
  deleteThread: (docId: string, threadId: string) =>
    request<unknown>(`/api/documents/${enc(docId)}/chat/threads/${enc(threadId)}`, { method: "DELETE" }),

  // Ask: threads about the whole library (their turns are ChatTransport.ask in transport.ts)
  listAskThreads: async () => listOf<Thread>(await request<unknown>("/api/ask/threads"), "threads"),
  getAskThread: (threadId: string) => request<ThreadWithMessages>(`/api/ask/threads/${enc(threadId)}`),
  renameAskThread: (threadId: string, title: string) =>
    request<Thread>(`/api/ask/threads/${enc(threadId)}`, { method: "PATCH", body: { title } }),
  deleteAskThread: (threadId: string) => request<unknown>(`/api/ask/threads/${enc(threadId)}`, { method: "DELETE" }),

  /** Where the export of a prompt's latest extraction per document downloads from. */
  exportURL: (promptIdOrRev: string, format: "csv" | "json" | "jsonl") => `/api/prompts/${enc(promptIdOrRev)}/export?format=${format}`,

  // auto-create
  startAutoCreate: (docId: string, model?: string) =>
    request<unknown>(`/api/documents/${enc(docId)}/auto-create`, { method: "POST", body: { model } }),
  acceptAutoCreate: (docId: string) =>
    request<DocumentInfo>(`/api/documents/${enc(docId)}/auto-create/accept`, { method: "POST" }),
  rejectAutoCreate: (docId: string) =>
    request<DocumentInfo>(`/api/documents/${enc(docId)}/auto-create/reject`, { method: "POST" }),
  /** Accepts the proposals of several documents at once. */
  acceptAutoCreateMany: (document_ids: string[]) =>
    request<AcceptReport>("/api/auto-create/accept", { method: "POST", body: { document_ids } }),

  // provider settings, kept by the server (the API key is never sent back)
  getSettings: () => request<ServerSettings>("/api/settings"),
  putSettings: (body: SettingsPatch) => request<ServerSettings>("/api/settings", { method: "PUT", body }),
  /** Asks each provider of the settings `body` would give (not saved) for its models. */
  testSettings: (body: SettingsPatch) => request<SettingsTest>("/api/settings/test", { method: "POST", body }),
  // OCR settings: the languages and the vision model (only the members sent change)
  getOcrSettings: () => request<OcrSettings>("/api/settings/ocr"),
  putOcrSettings: (body: OcrSettingsBody) => request<OcrSettings>("/api/settings/ocr", { method: "PUT", body }),
  // MCP at /mcp: whether clients get only the read-only tools
  getMcpSettings: () => request<McpSettings>("/api/settings/mcp"),
  putMcpSettings: (body: McpSettingsBody) => request<McpSettings>("/api/settings/mcp", { method: "PUT", body }),

  // the inbox folder: where it is and what happens to its files (issue #34)
  getInboxSettings: () => request<InboxSettings>("/api/settings/inbox"),
  /** Changes the members sent; a bad value is refused (400, naming its field) and nothing is stored. */
  putInboxSettings: (body: InboxSettingsBody) => request<InboxSettings>("/api/settings/inbox", { method: "PUT", body }),
  /** The folder's state and the files the inbox has seen, newest first. */
  inbox: (limit: number) => request<InboxActivity>("/api/inbox", { query: { limit } }),

  // the history of changes, and undo (newest first; filters as GET /api/history takes them)
  listHistory: (query: HistoryQuery = {}) => request<HistoryList>("/api/history", { query: { ...query } }),
  undoEntry: (id: number, cascade = false) => request<UndoResult>(`/api/history/${id}/undo`, { method: "POST", body: { cascade } }),
  /** Every change of a chat turn, or with callId that tool call's alone (an approved card's Undo). */
  undoTurn: (turnId: string, cascade = false, callId?: string) =>
    request<UndoResult>(`/api/history/turns/${enc(turnId)}/undo`, { method: "POST", body: { cascade, call_id: callId } }),
  undoRun: (runId: string, cascade = false) =>
    request<UndoResult>(`/api/history/runs/${enc(runId)}/undo`, { method: "POST", body: { cascade } }),
  getHistorySettings: () => request<HistorySettings>("/api/history/settings"),
  putHistorySettings: (retention_days: number) =>
    request<HistorySettings>("/api/history/settings", { method: "PUT", body: { retention_days } }),
  emptyHistory: () => request<HistorySettings>("/api/history", { method: "DELETE" }),

  // usage and spending limits
  /** The usage ledger summed since a day (YYYY-MM-DD; all without), by day, model, edge, run, or each day's models (the chart). */
  usage: (by: "day" | "model" | "edge" | "run" | "day_model", since?: string) => request<UsageReport>("/api/usage", { query: { by, since } }),
  usageLimits: () => request<UsageStatus>("/api/usage/limits"),
  /** Replaces the limits (a limit left out is none). */
  putUsageLimits: (body: LimitsBody) => request<UsageStatus>("/api/usage/limits", { method: "PUT", body }),
  removeUsageLimits: () => request<UsageStatus>("/api/usage/limits", { method: "DELETE" }),
  /** The prices of the models that matter (used, the default, overridden) and where each comes from. */
  usagePrices: () => request<UsagePrices>("/api/usage/prices"),
  /** Replaces the overrides (a model left out has the list's price again). */
  putUsagePrices: (overrides: Record<string, PriceOverride>) =>
    request<UsagePrices>("/api/usage/prices", { method: "PUT", body: { overrides } }),
  /** What auto-create of these documents would use and cost (cost_usd absent: price unknown). */
  estimateAutoCreate: (document_ids: string[], model?: string) =>
    request<AutoCreateEstimate>("/api/auto-create/estimate", { method: "POST", body: { document_ids, ...(model ? { model } : {}) } }),
};

/** The filters of GET /api/history. */
export interface HistoryQuery {
  document?: string;
  edge?: string;
  actor?: string;
  turn?: string;
  run?: string;
  /** With turn: one tool call's changes. */
  call?: string;
  limit?: number;
}

/** GET /api/setup: first-run state (Ollama found or not, models and their capabilities, the recommended model, next steps). */
export const getSetup = (signal?: AbortSignal) => request<import("./types").SetupStatus>("/api/setup", { signal });

/** POST /api/documents/{id}/password: reads a document that failed for want of a password again, with this one. */
export const readWithPassword = (id: string, password: string) =>
  request<import("./types").DocumentInfo>(`/api/documents/${encodeURIComponent(id)}/password`, { method: "POST", body: { password } });
