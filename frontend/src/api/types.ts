// Wire types of the HTTP API and the agent events, named as
// docs/protocol.md names them. Field names are the
// protocol's; do not rename them here.
//
// The agent's events, the `result` object and the types they use (ToolCall,
// TurnResult, WorkingState, Usage, Extraction, Mention, ...), and the
// metadata of thread messages (MessageData), are generated from the Go types
// into ./events.gen.ts and re-exported here; change them in Go (agent/) and
// regenerate (see the top of that file), never here.

import type { Extraction, Mention, MessageData, ToolCall, WorkingState } from "./events.gen";

export type * from "./events.gen";

/** Error body of every failed request: `{error, code}`. */
export interface ErrorBody {
  error: string;
  code?: string;
}

export type DocumentStatus = "ready" | "needs_ocr" | "ocr" | "failed" | string;

export interface DocumentInfo {
  id: string;
  name: string;
  media_type: string;
  size: number;
  sha256: string;
  pages: number;
  status: DocumentStatus;
  /** Why the document needs OCR or failed; "" otherwise. */
  error: string;
  tag_ids: string[];
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  auto_create_status: string;
  /** OCR progress while status is "ocr". */
  ocr_pages_done?: number;
  ocr_pages_total?: number;
  auto_create_error?: string;
  auto_create_schema_id?: string;
  auto_create_prompt_id?: string;
  auto_create_extraction_id?: string;
  auto_create_thread_id?: string;
  /** What the last unattended run tried outside its scope and was refused (kept with a proposal and with a failed run). */
  auto_create_refused?: { tool: string; reason: string }[];
  /** The document's kind: the schema documents like it are extracted with ("" or absent for none). */
  schema_id?: string;
  /** The kind's schema name (in lists). */
  kind_name?: string;
  /** The state of the document's latest extraction ("" or "none" when there is none). */
  extraction_status?: string;
}

/** What GET /api/documents sorts by. */
export type DocumentSort = "name" | "created_at" | "kind" | "auto_create_status" | "extraction_status";
export type SortOrder = "asc" | "desc";

export interface DocumentList {
  documents: DocumentInfo[];
  total: number;
}

export interface UploadAnswer {
  documents: DocumentInfo[];
  errors: { file: string; error: string }[];
}

export interface DocumentText {
  text: string;
  page?: number;
  pages: number;
}

/** `response_format = {type: "json_schema", json_schema: {name, schema, strict}}`. */
export interface ResponseFormat {
  type: "json_schema";
  json_schema: { name: string; schema: unknown; strict?: boolean };
}

export interface SchemaRevision {
  schema_id: string;
  schema_revid: string;
  version: number;
  name: string;
  response_format: ResponseFormat;
  created_at?: string;
}

export interface PromptRevision {
  prompt_id: string;
  prompt_revid: string;
  version: number;
  name: string;
  content: string;
  schema_id?: string;
  schema_revid?: string;
  schema_version?: number;
  model?: string;
  tag_ids: string[];
  created_at?: string;
}

export interface PromptInput {
  name: string;
  content: string;
  schema_id?: string;
  schema_version?: number;
  model?: string;
  tag_ids?: string[];
}

export interface Tag {
  id: string;
  name: string;
  color: string;
  description: string;
  created_at?: string;
  updated_at?: string;
}

export interface TagInput {
  name: string;
  color?: string;
  description?: string;
}

export interface SearchHit {
  document_id: string;
  document_name?: string;
  page: number;
  chunk_id: number;
  snippet: string;
  score: number;
}

export interface ModelInfo {
  id: string;
  provider: string;
}

export interface ModelList {
  models: ModelInfo[];
  default: string;
}

/** Where a setting's value comes from: an environment variable (which wins), the app's saved settings, or the default. */
export type SettingSource = "env" | "settings" | "default";

/** GET/PUT /api/settings: the provider configuration in effect. */
export interface ServerSettings {
  ollama_host: string;
  openai_base_url: string;
  /** The key itself is never sent back. */
  openai_api_key_set: boolean;
  default_model: string;
  sources: Partial<Record<"ollama_host" | "openai_base_url" | "openai_api_key" | "default_model", SettingSource>>;
}

/** PUT /api/settings body: absent fields stay, "" removes the saved value. */
export interface SettingsPatch {
  ollama_host?: string;
  openai_base_url?: string;
  openai_api_key?: string;
  default_model?: string;
}

/** What one provider answered to POST /api/settings/test. */
export interface ProviderCheck {
  provider: string;
  url: string;
  configured: boolean;
  ok: boolean;
  models: string[];
  error?: string;
}

export interface SettingsTest {
  providers: ProviderCheck[];
}

export interface ToolLists {
  read_only: string[];
  read_write: string[];
}

export interface Thread {
  thread_id: string;
  document_id: string;
  title: string;
  model?: string;
  working_state: WorkingState;
  created_at: string;
  updated_at: string;
  message_count: number;
}

/** One stored message of a thread, as the model saw it. */
export interface ThreadMessage {
  seq: number;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  thinking?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  tool_name?: string;
  /** Round index, usage, approvals, proposed/executed arguments, mentions. */
  data?: MessageData;
  created_at: string;
}

export interface ThreadWithMessages extends Thread {
  messages: ThreadMessage[];
}

// ---- agent -----------------------------------------------------------

export interface ChatRequest {
  message: string;
  thread_id?: string;
  messages?: { role: string; content: string }[];
  mentions?: Mention[];
  model?: string;
  stream?: boolean;
  auto_approve?: boolean;
  auto_approved_tools?: string[];
  truncate_thread_to_message_count?: number;
}

export interface Approval {
  call_id: string;
  approved: boolean;
  /** Replaces the proposed arguments (edit before approve). */
  arguments?: unknown;
}

export interface ApproveRequest {
  turn_id: string;
  approvals: Approval[];
  stream?: boolean;
  auto_approved_tools?: string[];
}

// ---- data view: the rows of one schema --------------------------------

/** One column of a schema's table: a field, dotted when nested. */
export interface DataColumn {
  path: string;
  /** The JSON Schema type of the field: string, number, integer, boolean, array, object (or a union as "string|null"). */
  type: string;
  title: string;
}

/** One document's latest extraction with that schema. */
export interface DataRow {
  document_id: string;
  document_name: string;
  extraction_id: string;
  validation_status: string;
  auto_create_status: string;
  /** The paths edited by hand since extraction. */
  edited: string[];
  /** Values by column path; arrays stay arrays. */
  values: Record<string, unknown>;
  /** Optional: the extraction's problems, `{path, message}` with JSON-pointer or dotted paths. */
  validation_errors?: { path?: string; message?: string }[];
  /** Where each leaf's value stands in the document, by dotted path (absent or {} for older extractions). */
  evidence?: EvidenceMap;
}

/** GET /api/schemas/{schema_id}/rows. */
export interface DataRows {
  columns: DataColumn[];
  rows: DataRow[];
  total: number;
}

export type DataStatus = "" | "valid" | "invalid" | "edited";

/** What the data view asks for: the same for rows and for an export. */
export interface DataQuery {
  /** A column path or "document_name"; "" for the server's order. */
  sort?: string;
  order?: SortOrder;
  /** Column path → text; empty texts are left out. */
  filters?: Record<string, string>;
  status?: DataStatus;
}

// ---- evidence: where each extracted value stands in the document --------

/**
 * How a field's value was found: once in the document (grounded), in
 * several places (ambiguous: see candidates), nowhere (ungrounded), or set
 * by a person since (edited).
 */
export type EvidenceStatus = "grounded" | "ambiguous" | "ungrounded" | "edited";

/** x0, y0, x1, y1 as fractions (0..1) of the page's width and height, from the top left of the page as displayed. */
export type EvidenceBox = [number, number, number, number];

/** One place an ambiguous value was found. */
export interface EvidenceCandidate {
  /** 1-based. */
  page: number;
  quote: string;
  bbox?: EvidenceBox;
}

/** The evidence of one leaf of an extraction's value. */
export interface FieldEvidence {
  status: EvidenceStatus;
  /** 1-based. */
  page?: number;
  /** The text as it stands in the document. */
  quote?: string;
  bbox?: EvidenceBox;
  /** Only when ambiguous, best first. */
  candidates?: EvidenceCandidate[];
}

/**
 * An extraction's (or a data row's) evidence by field path: dotted, array
 * indexes as numbers ("total", "seller.name", "lines.0.amount"). Leaves
 * whose value is null or a boolean have no entry; older extractions have
 * none at all. The extraction routes answer it as `evidence` beside the
 * fields of Extraction (read it with evidenceOf in src/evidence/).
 */
export type EvidenceMap = Record<string, FieldEvidence>;

/** PUT /api/documents/{id}/kind answers the document and the extraction made with the new kind's prompt. */
export interface KindChanged {
  document: DocumentInfo;
  /** null when the kind was cleared or no extraction ran (extraction_error says why). */
  extraction: Extraction | null;
  extraction_error?: string;
}

/** GET /api/setup: what Docent found at Ollama (OLLAMA_HOST or the default 127.0.0.1:11434). */
export interface SetupOllama {
  host: string;
  reachable: boolean;
  /** Why it could not be asked, with the cause ("connection refused"); "" when it answered. */
  error: string;
  /** GET /api/version's answer; "" when unknown. */
  version: string;
}

/** GET /api/setup: the OpenAI-compatible server; not asked while not configured. */
export interface SetupOpenAI {
  url: string;
  configured: boolean;
  reachable: boolean;
  error: string;
}

export type SetupUse = "agent" | "extraction";

/** One offered model and what Docent recommends it for. */
export interface SetupModel {
  id: string;
  provider: string;
  /** As Ollama reports them ("completion", "tools", "thinking", "vision", ...); [] when unknown. */
  capabilities: string[];
  context_length?: number;
  recommended_for: SetupUse[];
}

export type SetupStepKind =
  | "start_ollama"
  | "install_ollama"
  | "fix_ollama_host"
  | "pull_model"
  | "choose_default"
  | "use_openai"
  | "fix_openai"
  | "no_tools";

/** One thing to do: text with `backticked` commands, the command to copy and the page to open when there are. */
export interface SetupStep {
  kind: SetupStepKind;
  text: string;
  command?: string;
  url?: string;
}

export interface PullSuggestion {
  model: string;
  command: string;
  /** The machine it suits, e.g. "16 GB of RAM". */
  memory: string;
}

/** GET /api/setup: whether a usable model is set (the composer is disabled until one is) and what to do. */
export interface SetupStatus {
  ollama: SetupOllama;
  openai: SetupOpenAI;
  models: SetupModel[];
  /** "" when none is set. */
  default_model: string;
  default_model_source: SettingSource | "";
  recommended: { agent: string; extraction: string };
  /** The default model is set, offered, and can chat. */
  usable: boolean;
  /** One line: why not usable and what to do ("" when usable); shown after "No model yet: ". */
  reason: string;
  next_steps: SetupStep[];
  /** The `ollama pull` command for a model that can call tools. */
  pull_command: string;
  pull_suggestions: PullSuggestion[];
}
