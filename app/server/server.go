// Package server is Docent's HTTP API and the web UI's file server: one
// http.Handler that `docent --serve` listens with and that the desktop shell
// mounts unchanged inside its window.
//
// The routes are those of docs/protocol.md ("HTTP API"), declared once in
// routeTable (docs_test.go checks that each has its row there). Handlers decode, call one use case of storage, agent or ingest,
// and encode; what is cross-cutting (access token, Origin, body limits) is in
// ServeHTTP. Chat turns stream as Server-Sent Events through a bounded queue
// (stream.go) so that a slow client never grows memory without bound.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Defaults of the Config limits.
const (
	DefaultMaxUploadBytes    = 256 << 20
	DefaultMaxJSONBytes      = 1 << 20
	DefaultKeepaliveInterval = 15 * time.Second
	DefaultStreamBuffer      = 256
	DefaultWriteTimeout      = 30 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
)

// Config is what the server needs.
type Config struct {
	DB      *storage.DB
	Version string
	// Assets is the built web UI, with index.html at its root.
	Assets fs.FS
	Logger *slog.Logger
	// Agent runs chat turns (its Providers list the models, its Extractor
	// runs extractions). Without one, the routes that need it answer 503.
	Agent *agent.Agent
	// Settings, when set, is the saved provider configuration the Settings
	// page edits; its Agent then replaces Agent, rebuilt whenever the
	// settings change. Without it the settings routes answer 503.
	Settings Settings
	// Importer stores uploads; nil means one over DB with default limits.
	Importer *ingest.Importer
	// InboxFolder is the inbox folder of `docent --serve --inbox DIR`,
	// absolute: it wins over the saved setting, which cannot change it
	// then. "" leaves the setting's.
	InboxFolder string

	// LoopbackOnly, for a server listening on a loopback address, answers
	// only requests whose Host is a loopback address or a localhost name:
	// a page on another name that rebinds its DNS to 127.0.0.1 gets
	// nothing (421). A server listening beyond the machine answers any
	// Host, as its users name it as they like.
	LoopbackOnly bool

	// Token is the access token every route but GET /api/health requires.
	// Empty means no access control: only for the desktop shell, which
	// serves this handler inside its window without a network socket.
	Token string
	// MaxUploadBytes caps a POST /api/documents body (default 256 MiB).
	MaxUploadBytes int64
	// MaxJSONBytes caps a JSON request body (default 1 MiB).
	MaxJSONBytes int64
	// KeepaliveInterval is how long an idle event stream waits before it
	// sends a `:keepalive` comment (default 15 s), so proxies and browsers
	// do not close it while a model thinks.
	KeepaliveInterval time.Duration
	// StreamBuffer is how many events a stream queues for a slow client
	// before text and thinking chunks are coalesced (default 256).
	StreamBuffer int
	// WriteTimeout bounds each write of an event stream (default 30 s): a
	// client that stops reading ends its stream instead of holding a turn.
	WriteTimeout time.Duration
	// BodyTimeout is how long a request may take to send its body
	// (default 30 s), plus a second per 64 KiB that has arrived, so an
	// upload that keeps coming gets the time it needs and one that
	// trickles is cut off (body_deadline.go). Event streams, which send
	// no body, are not bounded by it.
	BodyTimeout time.Duration
	// Now tells the time for the per-minute limit on model-calling
	// requests (ratelimit.go); default time.Now.
	Now func() time.Time
}

// Server answers the HTTP API and serves the web UI.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	routes  []route
	files   http.Handler
	session string // the session cookie's value, derived from the token

	pipeline     *pipeline.Pipeline // the stages of each document: upload, OCR, embedding, auto-create
	docWatch     documentWatch      // streams of documents' changes (document_events.go)
	background   background         // what Start starts and Close stops (background.go)
	largeAnswers chan struct{}      // turns of large answers (large_answers.go)
	mcp          http.Handler       // MCP over Streamable HTTP at /mcp (mcp.go)
	library      libraryHub         // the library's event stream (library_events.go)
	inbox        inboxRun           // the inbox folder's watcher (inbox.go)
	perMinute    minuteWindow       // model-calling requests of the last minute (ratelimit.go)
}

// route is one line of the API: a ServeMux pattern, its handler and its
// contract (contract.go): the types it takes and answers, which the web
// client's functions are generated from.
type route struct {
	pattern string
	handle  http.HandlerFunc
	wire    Contract
}

// New returns the server's handler with every route registered. It starts
// no background work: Start does, and Close stops it.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.MaxJSONBytes <= 0 {
		cfg.MaxJSONBytes = DefaultMaxJSONBytes
	}
	if cfg.KeepaliveInterval <= 0 {
		cfg.KeepaliveInterval = DefaultKeepaliveInterval
	}
	if cfg.StreamBuffer <= 0 {
		cfg.StreamBuffer = DefaultStreamBuffer
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), files: http.FileServerFS(cfg.Assets),
		largeAnswers: make(chan struct{}, maxLargeAnswers)}
	if cfg.Token != "" {
		s.session = sessionValue(cfg.Token)
	}
	s.pipeline = pipeline.New(pipeline.Config{
		DB: cfg.DB, Importer: cfg.Importer, Agent: s.agent, Logger: cfg.Logger,
		OCRVision: s.ocrVision,       // the Settings page's vision model (ocr_settings.go)
		Changed:   s.publishDocument, // the document's streams and the library's
		AutoCreateDone: func(ctx context.Context, d storage.Document, res agent.AutoCreateResult, err error) {
			if res.ExtractionID != "" {
				s.publishRow(d.ID, d.SchemaID, res.ExtractionID)
			}
		},
	})
	s.mcp = s.newMCP()
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		s.mux.HandleFunc(rt.pattern, asPerson(rt.handle)) // history.go
	}
	s.mux.HandleFunc("/api/", s.handleUnknownAPI)
	s.mux.HandleFunc("/", s.handleUI)
	return s
}

// routeTable is the API, grouped as docs/protocol.md's route tables are
// grouped by resource; every route has its row there. The routes that call
// a model are wrapped in modelCalling, the per-minute limit
// (ratelimit.go), as docs/protocol.md lists them.
func (s *Server) routeTable() []route {
	return []route{
		{"GET /api/health", s.handleHealth, call[none, none, healthResponse]("health")},

		{"POST /api/documents", s.uploadDocuments, link[none, uploadReport]("uploadDocumentsURL")},
		{"GET /api/documents", s.listDocuments, call[documentQuery, none, documentList]("listDocuments")},
		{"GET /api/documents/events", s.libraryEvents, link[none, none]("libraryEventsURL")},
		{"GET /api/documents/{id}", s.getDocument, call[none, none, storage.Document]("getDocument")},
		{"PATCH /api/documents/{id}", s.patchDocument, call[none, documentPatch, storage.Document]("updateDocument")},
		{"DELETE /api/documents/{id}", s.deleteDocument, call[none, none, storage.Document]("deleteDocument")},
		{"GET /api/documents/{id}/file", s.documentFile, link[none, none]("documentFileURL")},
		{"GET /api/documents/{id}/text", s.documentText, call[pageTextQuery, none, documentText]("documentText")},
		{"GET /api/documents/{id}/pages", s.documentPages, call[none, none, pageList]("documentPages")},
		{"GET /api/documents/{id}/pages/{page}/words", s.pageWords, call[none, none, storage.PageWords]("pageWords")},
		{"GET /api/documents/{id}/pages/{page}/image", s.pageImage, link[pageImageQuery, none]("pageImageURL")},

		{"GET /api/schemas", schemaRoutes.listLatest(s), call[pageQuery, none, schemaList]("listSchemas")},
		{"POST /api/schemas", s.createSchema, call[none, schemaBody, agent.SchemaResult]("createSchema")},
		{"GET /api/schemas/{schema_id}", schemaRoutes.getLatest(s), call[none, none, storage.SchemaRevision]("getSchema")},
		{"PUT /api/schemas/{schema_id}", s.updateSchema, call[none, schemaBody, agent.SchemaResult]("updateSchema")},
		{"DELETE /api/schemas/{schema_id}", schemaRoutes.delete(s), call[none, none, storage.SchemaRevision]("deleteSchema")},
		{"GET /api/schemas/{schema_id}/revisions", schemaRoutes.listRevisions(s), call[none, none, schemaRevisions]("listSchemaRevisions")},
		{"GET /api/schema-revisions/{schema_revid}", schemaRoutes.getRevision(s), call[none, none, storage.SchemaRevision]("getSchemaRevision")},

		{"GET /api/prompts", promptRoutes.listLatest(s), call[promptQuery, none, promptList]("listPrompts")},
		{"POST /api/prompts", s.createPrompt, call[none, promptBody, storage.PromptRevision]("createPrompt")},
		{"GET /api/prompts/{prompt_id}", promptRoutes.getLatest(s), call[none, none, storage.PromptRevision]("getPrompt")},
		{"PUT /api/prompts/{prompt_id}", s.updatePrompt, call[none, promptBody, promptUpdate]("updatePrompt")},
		{"DELETE /api/prompts/{prompt_id}", promptRoutes.delete(s), call[none, none, storage.PromptRevision]("deletePrompt")},
		{"GET /api/prompts/{prompt_id}/revisions", promptRoutes.listRevisions(s), call[none, none, promptRevisions]("listPromptRevisions")},
		{"GET /api/prompt-revisions/{prompt_revid}", promptRoutes.getRevision(s), call[none, none, storage.PromptRevision]("getPromptRevision")},
		{"GET /api/prompts/{prompt_id}/export", s.exportPrompt, link[exportQuery, none]("exportURL")},
		{"GET /api/prompts/{prompt_id}/evaluations", s.listEvaluations, call[none, none, evaluationList]("listEvaluations")},

		{"GET /api/tags", s.listTags, call[none, none, tagList]("listTags")},
		{"POST /api/tags", s.createTag, call[none, tagBody, storage.Tag]("createTag")},
		{"GET /api/tags/{tag_id}", s.getTag, call[none, none, storage.Tag]("getTag")},
		{"PATCH /api/tags/{tag_id}", s.patchTag, call[none, tagBody, storage.Tag]("updateTag")},
		{"DELETE /api/tags/{tag_id}", s.deleteTag, call[none, none, storage.Tag]("deleteTag")},

		{"GET /api/documents/{id}/extractions", s.listExtractions, call[none, none, extractionList]("listExtractions")},
		{"POST /api/documents/{id}/extractions", s.modelCalling(s.runExtraction), call[none, extractionRun, storage.Extraction]("runExtraction")},
		{"PATCH /api/documents/{id}/extractions/{extraction_id}", s.patchExtraction, call[none, fieldPatch, storage.Extraction]("patchExtraction")},

		{"GET /api/search", s.modelCallingIf(searchesByMeaning, s.search), call[searchQuery, none, searchResult]("search")},
		{"GET /api/search/status", s.searchStatus, call[searchStatusQuery, none, searchStatus]("searchStatus")},
		{"GET /api/sql", s.querySQL, call[sqlQuery, none, storage.DataResult]("querySQL")},
		{"GET /api/models", s.listModels, call[none, none, modelList]("models")},
		{"GET /api/chat/tools", s.listTools, call[none, none, toolList]("chatTools")},
		{"POST /api/tools/{name}/summary", s.toolSummary, call[none, summaryBody, agent.Summary]("toolSummary")},

		{"GET /api/settings", s.getSettings, call[none, none, settings.View]("getSettings")},
		{"PUT /api/settings", s.putSettings, call[none, settings.Patch, settings.View]("putSettings")},
		{"POST /api/settings/test", s.testSettings, call[none, settings.Patch, settingsTest]("testSettings")},
		{"GET /api/settings/ocr", s.getOCRSettings, call[none, none, ocrSettings]("getOcrSettings")},
		{"PUT /api/settings/ocr", s.putOCRSettings, call[none, ocrSettingsBody, ocrSettings]("putOcrSettings")},
		{"GET /api/setup", s.getSetup, call[none, none, settings.Status]("getSetup")}, // first-run setup (setup.go)
		{"GET /api/inbox", s.getInbox, call[limitQuery, none, inboxActivity]("inbox")},
		{"GET /api/settings/inbox", s.getInboxSettings, call[none, none, inbox.Settings]("getInboxSettings")},
		{"PUT /api/settings/inbox", s.putInboxSettings, call[none, inboxSettingsBody, inbox.Settings]("putInboxSettings")},
		{"GET /api/settings/mcp", s.getMCPSettings, call[none, none, mcpSettings]("getMcpSettings")},
		{"PUT /api/settings/mcp", s.putMCPSettings, call[none, mcpSettingsBody, mcpSettings]("putMcpSettings")},

		// The usage ledger and the spending limits (usage.go).
		{"GET /api/usage", s.getUsage, call[usageQuery, none, usageReport]("usage")},
		{"GET /api/usage/limits", s.getUsageLimits, call[none, none, storage.UsageStatus]("usageLimits")},
		{"PUT /api/usage/limits", s.putUsageLimits, call[none, usageLimitsBody, storage.UsageStatus]("putUsageLimits")},
		{"DELETE /api/usage/limits", s.deleteUsageLimits, call[none, none, storage.UsageStatus]("removeUsageLimits")},
		{"GET /api/usage/prices", s.getUsagePrices, call[none, none, agent.PriceReport]("usagePrices")},
		{"PUT /api/usage/prices", s.putUsagePrices, call[none, usagePricesBody, agent.PriceReport]("putUsagePrices")},
		{"POST /api/auto-create/estimate", s.estimateAutoCreate, call[none, autoCreateEstimateBody, autoCreateEstimate]("estimateAutoCreate")},

		{"POST /api/documents/{id}/chat", s.modelCalling(s.chat), stream[chatBody]("chatURL")},
		{"POST /api/documents/{id}/chat/approve", s.modelCalling(s.approve), stream[approveBody]("approveURL")},
		{"GET /api/documents/{id}/chat/threads", s.listThreads, call[none, none, threadList]("listThreads")},
		{"POST /api/documents/{id}/chat/threads", s.createThread, call[none, threadBody, threadCreated]("createThread")},
		{"GET /api/documents/{id}/chat/threads/{thread_id}", s.getThread, call[none, none, ThreadWithMessages]("getThread")},
		{"PATCH /api/documents/{id}/chat/threads/{thread_id}", s.renameThread, call[none, threadBody, storage.Thread]("renameThread")},
		{"DELETE /api/documents/{id}/chat/threads/{thread_id}", s.deleteThread, call[none, none, storage.Thread]("deleteThread")},

		// Ask Docent (ask.go): a turn about the whole library, and its
		// threads, which belong to no document.
		{"POST /api/ask", s.modelCalling(s.ask), stream[askBody]("askURL")},
		{"GET /api/ask/threads", s.listThreads, call[none, none, threadList]("listAskThreads")},
		{"GET /api/ask/threads/{thread_id}", s.getThread, call[none, none, ThreadWithMessages]("getAskThread")},
		{"PATCH /api/ask/threads/{thread_id}", s.renameThread, call[none, threadBody, storage.Thread]("renameAskThread")},
		{"DELETE /api/ask/threads/{thread_id}", s.deleteThread, call[none, none, storage.Thread]("deleteAskThread")},

		{"POST /api/documents/{id}/password", s.readWithPassword, call[none, documentPassword, storage.Document]("readWithPassword")},
		{"GET /api/documents/{id}/events", s.documentEvents, link[none, none]("documentEventsURL")},
		{"POST /api/documents/{id}/auto-create", s.modelCalling(s.startAutoCreate), call[none, autoCreateBody, storage.Document]("startAutoCreate")},
		{"POST /api/documents/{id}/auto-create/accept", s.acceptAutoCreate, call[none, none, storage.Document]("acceptAutoCreate")},
		{"POST /api/documents/{id}/auto-create/reject", s.rejectAutoCreate, call[none, none, storage.Document]("rejectAutoCreate")},

		// The data of a schema and bulk actions (data.go; the export,
		// export.go).
		{"GET /api/schemas/{schema_id}/rows", s.listSchemaRows, call[schemaRowsQuery, none, schemaRows]("schemaRows")},
		{"GET /api/schemas/{schema_id}/export", s.exportSchema, link[schemaExportQuery, none]("schemaExportURL")},
		{"POST /api/schemas/{schema_id}/rerun", s.modelCalling(s.rerunSchema), call[none, rerunBody, rerunReport]("rerunSchema")},
		{"POST /api/auto-create/accept", s.acceptAutoCreateMany, call[none, acceptBody, acceptReport]("acceptAutoCreateMany")},
		{"PUT /api/documents/{id}/kind", s.setDocumentKind, call[none, kindChange, kindChanged]("setDocumentKind")},

		// MCP over Streamable HTTP (mcp.go): a client's messages, its
		// stream of the server's, and the end of its session.
		{"POST /mcp", s.handleMCP, external()},
		{"GET /mcp", s.handleMCP, external()},
		{"DELETE /mcp", s.handleMCP, external()},
		// The history of changes and undo (history.go).
		{"GET /api/history", s.listHistory, call[historyQuery, none, historyList]("listHistory")},
		{"DELETE /api/history", s.emptyHistory, call[none, none, historySettings]("emptyHistory")},
		{"POST /api/history/{entry_id}/undo", s.undoHistoryEntry, call[none, undoBody, storage.UndoResult]("undoEntry")},
		{"POST /api/history/turns/{turn_id}/undo", s.undoHistoryTurn, call[none, undoBody, storage.UndoResult]("undoTurn")},
		{"POST /api/history/runs/{run_id}/undo", s.undoHistoryRun, call[none, undoBody, storage.UndoResult]("undoRun")},
		{"GET /api/history/settings", s.getHistorySettings, call[none, none, historySettings]("getHistorySettings")},
		{"PUT /api/history/settings", s.putHistorySettings, call[none, historySettingsBody, historySettings]("putHistorySettings")},
	}
}

// Routes returns the pattern of every API route ("GET /api/documents/{id}"),
// so tests can check each one's access rules.
func (s *Server) Routes() []string {
	out := make([]string, len(s.routes))
	for i, rt := range s.routes {
		out[i] = rt.pattern
	}
	return out
}

// ServeHTTP applies the access rules (access.go) and the body's read
// deadline (body_deadline.go), then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = s.limitBodyRead(w, r) // first: a refused request's body is read too
	if !s.allow(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// handleUI serves the web UI. It needs no token, so that a browser opened
// without the printed link still gets a page that can say to open it.
func (s *Server) handleUI(w http.ResponseWriter, r *http.Request) {
	s.files.ServeHTTP(w, r)
}

// healthResponse answers GET /api/health.
type healthResponse struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.DB.Ping(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, healthResponse{OK: true, Version: s.cfg.Version})
}

// handleUnknownAPI keeps mistyped API paths from falling through to the UI's
// index page: an API client gets a JSON 404 it can act on.
func (s *Server) handleUnknownAPI(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, fault.Errorf(fault.NotFound, "no API route %s %s", r.Method, r.URL.Path))
}

// errorResponse is the body of every error answer.
type errorResponse struct {
	// Error is the message for a person, as the one mapping
	// (fault.Describe) words it.
	Error string `json:"error"`
	// Code is the machine-readable class of the error: clients branch on
	// it, never on the message.
	Code string `json:"code" ts:"ErrorCode"`
	// Field names the request member the error is about ("name",
	// "schema_id"), for a form to show it beside that input; left out for
	// an error about the whole request.
	Field string `json:"field,omitempty"`
}

// The HTTP layer's own error codes, beside the domain's (package fault).
const (
	codeUnauthorized    fault.Code = "unauthorized"
	codeForbiddenOrigin fault.Code = "forbidden_origin"
	codeMisdirected     fault.Code = "misdirected"
	codeTooLarge        fault.Code = "too_large"
	codeBodyTimeout     fault.Code = "request_timeout"
)

// statusOf maps error codes to HTTP statuses, in one table; a code not in
// it is answered 500. A model provider's failure is the model server's
// (502), except a prompt too large for the model's window, which is refused
// before any model call: the request is too large (413).
var statusOf = map[fault.Code]int{
	fault.NotFound:      http.StatusNotFound,
	fault.Conflict:      http.StatusConflict,
	fault.Invalid:       http.StatusBadRequest,
	fault.Unavailable:   http.StatusServiceUnavailable,
	fault.Canceled:      http.StatusServiceUnavailable,
	fault.Timeout:       http.StatusGatewayTimeout,
	fault.SpendingLimit: http.StatusTooManyRequests,
	fault.Internal:      http.StatusInternalServerError,
	codeUnauthorized:    http.StatusUnauthorized,
	codeForbiddenOrigin: http.StatusForbidden,
	codeMisdirected:     http.StatusMisdirectedRequest,
	codeTooLarge:        http.StatusRequestEntityTooLarge,
	codeBodyTimeout:     http.StatusRequestTimeout,

	fault.Code(provider.KindUnreachable):       http.StatusBadGateway,
	fault.Code(provider.KindModelNotFound):     http.StatusBadGateway,
	fault.Code(provider.KindNoToolSupport):     http.StatusBadGateway,
	fault.Code(provider.KindContextOverflow):   http.StatusRequestEntityTooLarge,
	fault.Code(provider.KindRateLimited):       http.StatusBadGateway,
	fault.Code(provider.KindServerError):       http.StatusBadGateway,
	fault.Code(provider.KindStreamInterrupted): http.StatusBadGateway,
	fault.Code(provider.KindAuth):              http.StatusBadGateway,
	fault.Code(provider.KindBadResponse):       http.StatusBadGateway,
	fault.Code(provider.KindRejected):          http.StatusBadGateway,
}

// errorAnswer is how err is answered: its status and body, by the one
// mapping (fault.Describe). An internal error is logged first, once, with
// op (the request, or what it was doing).
func errorAnswer(ctx context.Context, logger *slog.Logger, op string, err error) (int, errorResponse) {
	code, msg, _ := fault.Describe(fault.Report(ctx, logger, op, err))
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return status, errorResponse{Error: msg, Code: string(code), Field: fault.FieldOf(err)}
}

// errorText is what a person reads for err in a list of failures (an
// upload's files, the providers that could not be asked): its message by
// the one mapping, with an internal error logged.
func errorText(ctx context.Context, logger *slog.Logger, op string, err error) string {
	_, body := errorAnswer(ctx, logger, op, err)
	return body.Error
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if timeout := bodyTimedOut(r); timeout != nil {
		// Whatever the handler made of the failed read, this is why.
		err = timeout
		w.Header().Set("Connection", "close")
	} else if r.Context().Err() != nil {
		// The client left; nobody reads the answer.
		s.cfg.Logger.Debug("request ended by the client", "method", r.Method, "path", r.URL.Path, "err", err)
		return
	}
	status, body := errorAnswer(r.Context(), s.cfg.Logger, r.Method+" "+r.URL.Path, err)
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the status is sent; a failed write means the client left
}

// decodeJSON reads a JSON object body into v: unknown fields, trailing
// data and bodies over MaxJSONBytes are client errors. An empty body is
// one too unless optional.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxJSONBytes)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return s.bodyError(err, optional)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return s.bodyError(err, false)
		}
		return fault.Errorf(fault.Invalid, "invalid JSON body: data after the object")
	}
	return nil
}

func (s *Server) bodyError(err error, optional bool) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return fault.Errorf(codeTooLarge, "the request body is over the limit of %s", byteSize(mbe.Limit))
	case errors.Is(err, io.EOF):
		if optional {
			return nil
		}
		return fault.Errorf(fault.Invalid, "the request body is empty: send a JSON object")
	}
	return fault.Errorf(fault.Invalid, "invalid JSON body: %v", err)
}

// byteSize says a limit the way a person would: "256 MiB", "1 MiB", "512 KiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// queryInt reads an optional integer query parameter; a malformed or
// negative one is a client error.
func queryInt(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fault.Errorf(fault.Invalid, "query parameter %s=%q is not a non-negative integer", name, v)
	}
	return n, nil
}

// needAgent reports, by answering 503, a server built without an agent.
func (s *Server) needAgent(w http.ResponseWriter, r *http.Request) bool {
	if s.agent() != nil {
		return true
	}
	s.writeError(w, r, fault.Errorf(fault.Unavailable, "this server runs without the agent"))
	return false
}
