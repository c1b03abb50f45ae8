package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// chatBody is the body of POST /api/documents/{id}/chat.
type chatBody struct {
	Message string `json:"message"`
	// ThreadID continues a thread; the server holds its history.
	ThreadID string `json:"thread_id"`
	// Messages is the history a client carries itself (stateless use,
	// nothing stored) when there is no ThreadID.
	Messages []agent.Message `json:"messages"`
	Mentions []agent.Mention `json:"mentions"`
	// Model is a provider-prefixed model id; empty uses the thread's, then
	// the server's default.
	Model string `json:"model"`
	// Stream answers with Server-Sent Events instead of the result object.
	Stream            bool     `json:"stream"`
	AutoApprove       bool     `json:"auto_approve"`
	AutoApprovedTools []string `json:"auto_approved_tools"`
	// TruncateThreadToMessageCount, with ThreadID, first cuts the thread to
	// that many messages (resubmitting from an earlier question).
	TruncateThreadToMessageCount *int `json:"truncate_thread_to_message_count"`
}

// approveBody is the body of POST /api/documents/{id}/chat/approve.
type approveBody struct {
	TurnID    string           `json:"turn_id"`
	Approvals []agent.Approval `json:"approvals"`
	Stream    bool             `json:"stream"`
	// AutoApprovedTools are tools the user chose to always approve for the
	// rest of the turn.
	AutoApprovedTools []string `json:"auto_approved_tools"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body chatBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	run, err := s.chatTurn(r.PathValue("id"), body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.runTurn(w, r, body.Stream, run)
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body approveBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	run, err := s.approveTurn(r.PathValue("id"), body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.runTurn(w, r, body.Stream, run)
}

// chatTurn is the use case of a chat message about document docID, whatever
// carries its events: it checks the request and returns the turn to run.
func (s *Server) chatTurn(docID string, body chatBody) (turnFunc, error) {
	// Mentions and truncation are checked by the agent (and the store)
	// before any model call; an unknown tool to auto-approve is the
	// server's to refuse, as the agent would silently never meet it.
	if err := checkTools(body.AutoApprovedTools); err != nil {
		return nil, err
	}
	req := agent.ChatRequest{
		DocumentID: docID, ThreadID: body.ThreadID, Message: body.Message,
		Model: body.Model, AutoApprove: body.AutoApprove, AutoApprovedTools: body.AutoApprovedTools,
		Mentions: body.Mentions, Messages: body.Messages,
		TruncateThreadToMessageCount: body.TruncateThreadToMessageCount,
	}
	return func(ctx context.Context, sink agent.Sink) (agent.TurnResult, error) {
		return s.agent().Chat(ctx, req, sink)
	}, nil
}

// approveTurn is the use case of an approval of a paused turn of document
// docID, whatever carries its events.
func (s *Server) approveTurn(docID string, body approveBody) (turnFunc, error) {
	if err := checkTools(body.AutoApprovedTools); err != nil {
		return nil, err
	}
	req := agent.ApproveRequest{
		DocumentID: docID, TurnID: body.TurnID, Approvals: body.Approvals,
		AutoApprovedTools: body.AutoApprovedTools,
	}
	return func(ctx context.Context, sink agent.Sink) (agent.TurnResult, error) {
		return s.agent().Approve(ctx, req, sink)
	}, nil
}

// RefusedError is a turn refused before its first event, as the HTTP API
// answers it: the status and the {"error", "code"} body. RunChat and
// RunApprove return it, so that a transport other than HTTP shows the error
// a browser would get.
type RefusedError struct {
	Status  int    `json:"status"`
	Message string `json:"error"`
	Code    string `json:"code"`
}

func (e *RefusedError) Error() string { return e.Message }

// RunChat is POST /api/documents/{id}/chat for a transport other than HTTP
// (the desktop window's Wails bindings). body is the same JSON object; its
// stream field changes nothing, as every event goes to sink: the agent.Event
// that the SSE stream sends as one data frame. It returns when the turn has
// ended, by the SSE stream's rules: a failure before the first event is a
// *RefusedError and nothing was emitted; after it, a failure the agent did
// not report still ends the events with exactly one error event, and
// RunChat returns nil. When ctx ends first (the user stopped the turn) it
// returns ctx's cause and owes no done; when sink fails, sink's error.
func (s *Server) RunChat(ctx context.Context, documentID string, body []byte, sink agent.Sink) error {
	var b chatBody
	return s.runUseCase(ctx, "chat "+documentID, body, &b, sink, func() (turnFunc, error) {
		return s.chatTurn(documentID, b)
	})
}

// RunApprove is POST /api/documents/{id}/chat/approve as RunChat is chat.
func (s *Server) RunApprove(ctx context.Context, documentID string, body []byte, sink agent.Sink) error {
	var b approveBody
	return s.runUseCase(ctx, "approve "+documentID, body, &b, sink, func() (turnFunc, error) {
		return s.approveTurn(documentID, b)
	})
}

// runUseCase checks and decodes body into v as the HTTP handlers do (the
// same limit, the same messages), prepares the turn and runs it into sink.
func (s *Server) runUseCase(ctx context.Context, op string, body []byte, v any, sink agent.Sink, prepare func() (turnFunc, error)) error {
	if s.agent() == nil {
		return s.refuse(ctx, op, fault.Errorf(fault.Unavailable, "this server runs without the agent"))
	}
	r := &http.Request{Body: io.NopCloser(bytes.NewReader(body))}
	if err := s.decodeJSON(nil, r, v, false); err != nil {
		return s.refuse(ctx, op, err)
	}
	run, err := prepare()
	if err != nil {
		return s.refuse(ctx, op, err)
	}
	ts := &turnSink{sink: sink}
	_, err = run(ctx, ts)
	started, terminal, serr := ts.state()
	switch {
	case serr != nil:
		return serr
	case !started && ctx.Err() != nil:
		return context.Cause(ctx)
	case !started && err != nil:
		return s.refuse(ctx, op, err)
	case !started:
		return s.refuse(ctx, op, errors.New("turn ended without events"))
	case !terminal && ctx.Err() != nil:
		return context.Cause(ctx)
	case !terminal && err != nil:
		// As over SSE: a failure the agent did not report as an event
		// still ends the events with exactly one error event.
		_, eb := errorAnswer(ctx, s.cfg.Logger, op, err)
		return sink.Emit(agent.ErrorEvent(eb.Error, eb.Code))
	}
	return nil
}

// refuse renders err as the HTTP API would answer it.
func (s *Server) refuse(ctx context.Context, op string, err error) error {
	status, body := errorAnswer(ctx, s.cfg.Logger, op, err)
	return &RefusedError{Status: status, Message: body.Error, Code: body.Code}
}

// turnSink passes a turn's events on and remembers whether one went out,
// whether a done or error did, and the sink's first failure.
type turnSink struct {
	sink agent.Sink

	mu                sync.Mutex
	started, terminal bool
	err               error
}

func (t *turnSink) Emit(e agent.Event) error {
	err := t.sink.Emit(e)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		if t.err == nil {
			t.err = err
		}
		return err
	}
	t.started = true
	t.terminal = t.terminal || e.Type.Terminal()
	return nil
}

func (t *turnSink) state() (started, terminal bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started, t.terminal, t.err
}

// runTurn streams a turn, or runs it to the end and answers its result.
func (s *Server) runTurn(w http.ResponseWriter, r *http.Request, stream bool, run turnFunc) {
	if stream {
		s.streamTurn(w, r, run)
		return
	}
	res, err := run(r.Context(), nil)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func checkTools(names []string) error {
	for _, n := range names {
		if _, ok := agent.ToolByName(n); !ok {
			return fault.Errorf(fault.Invalid, "auto_approved_tools: no tool is named %q", n)
		}
	}
	return nil
}

// toolList answers GET /api/chat/tools: the names by access class, and
// each tool's description for a UI that shows them.
type toolList struct {
	ReadOnly  []string   `json:"read_only"`
	ReadWrite []string   `json:"read_write"`
	Tools     []toolInfo `json:"tools"`
}

type toolInfo struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Access      agent.Access `json:"access"`
}

func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	list := toolList{ReadOnly: agent.ReadOnlyToolNames(), ReadWrite: agent.ReadWriteToolNames()}
	for _, t := range agent.Tools() {
		list.Tools = append(list.Tools, toolInfo{Name: t.Name, Description: t.Description, Access: t.Access})
	}
	writeJSON(w, http.StatusOK, list)
}

// modelList answers GET /api/models, as `docent models --json` prints.
type modelList struct {
	Models  []provider.ModelInfo `json:"models"`
	Default string               `json:"default"`
	// Errors says which configured providers could not be asked, and why;
	// the others' models are listed all the same.
	Errors []string `json:"errors,omitempty"`
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	a := s.agent()
	list := modelList{Models: []provider.ModelInfo{}, Default: a.DefaultModel}
	if reg := a.Providers; reg != nil {
		models, errs := reg.Models(r.Context())
		list.Models = append(list.Models, models...)
		for _, err := range errs {
			list.Errors = append(list.Errors, errorText(r.Context(), s.cfg.Logger, "list models", err))
		}
	}
	writeJSON(w, http.StatusOK, list)
}

// threadList answers GET /api/documents/{id}/chat/threads.
type threadList struct {
	Threads []storage.Thread `json:"threads"`
}

func (s *Server) listThreads(w http.ResponseWriter, r *http.Request) {
	threads, err := s.cfg.DB.ListThreads(r.Context(), threadDocument(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, threadList{Threads: threads})
}

// threadBody is the body of POST and PATCH .../chat/threads, and of
// PATCH /api/ask/threads/{thread_id}.
type threadBody struct {
	Title *string `json:"title"`
}

// threadCreated answers POST .../chat/threads.
type threadCreated struct {
	ThreadID string `json:"thread_id"`
}

func (s *Server) createThread(w http.ResponseWriter, r *http.Request) {
	var body threadBody
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	th, err := s.cfg.DB.CreateThread(r.Context(), r.PathValue("id"), deref(body.Title), "")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, threadCreated{ThreadID: th.ID})
}

// ThreadWithMessages answers GET .../chat/threads/{thread_id}, and is what
// `docent threads DOC THREAD --json` prints.
type ThreadWithMessages struct {
	storage.Thread
	Messages []storage.ThreadMessage `json:"messages"`
}

// getThread reads a thread through its document: a thread of another
// document is not found, nor a document's thread among the library's.
func (s *Server) getThread(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	th, err := s.cfg.DB.GetThread(ctx, threadDocument(r), r.PathValue("thread_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	msgs, err := s.cfg.DB.ThreadMessages(ctx, th.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if msgs == nil {
		msgs = []storage.ThreadMessage{}
	}
	// A thread stored before calls carried summaries gets them now, so
	// that its cards read as a live turn's do.
	agent.SummarizeStored(ctx, s.cfg.DB, th, msgs)
	writeJSON(w, http.StatusOK, ThreadWithMessages{Thread: th, Messages: msgs})
}

func (s *Server) renameThread(w http.ResponseWriter, r *http.Request) {
	var body threadBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Title == nil {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "a thread's PATCH needs title"))
		return
	}
	th, err := s.cfg.DB.RenameThread(r.Context(), threadDocument(r), r.PathValue("thread_id"), *body.Title)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, th)
}

func (s *Server) deleteThread(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	docID, threadID := threadDocument(r), r.PathValue("thread_id")
	th, err := s.cfg.DB.GetThread(ctx, docID, threadID)
	if err == nil {
		err = s.cfg.DB.DeleteThread(ctx, docID, threadID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, th)
}
