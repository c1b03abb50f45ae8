// Package modeltest is a scripted model server for tests.
//
// It speaks the real Ollama (/api/chat, /api/tags, /api/show, /api/embed)
// and OpenAI-compatible (/v1/chat/completions, /v1/models, /v1/embeddings)
// wire formats on a loopback httptest server, so Docent's tests drive the
// real client libraries end to end instead of mocking them. Each chat request takes the next
// scripted Reply (either wire format), every request is recorded, and a Reply
// can carry a Fault: an error status, a connection cut mid-stream, a frame of
// invalid JSON, or a slow first token.
//
// Prompts are counted as a real server counts them, with a documented
// deterministic rule (tokens.go: three bytes a token), and on the Ollama
// wire a prompt over the window (options.num_ctx, capped by the model's
// ContextLength) is cut the way Ollama cuts it, silently, with
// prompt_eval_count saying what was kept: tests see what a real Ollama
// does to a document too long for the window.
//
// Images for a vision model are taken in each wire's form (Ollama's base64
// "images", OpenAI's image_url content parts), checked as the real servers
// check them and recorded decoded (images.go); a request's output cap
// (num_predict, max_tokens) cuts the answer with done_reason "length".
//
// Every handler watches the request's context while it waits, so a client
// that disconnects ends the handler and no goroutine is left behind.
//
// A Reply can also be Raw: a status, headers and a body written exactly as
// given, line by line, for replaying what a particular server family sends
// (its error bodies, its rate-limit headers, its stream quirks). NewInMemory
// serves the same handlers over an in-memory network, so that a test can run
// inside a testing/synctest bubble, where the loopback network cannot go.
package modeltest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ToolCall is one tool call the scripted model makes.
type ToolCall struct {
	// ID is the call id. On the OpenAI wire an empty ID becomes "call_<n>";
	// on the Ollama wire it is sent only when set.
	ID string
	// Name is the function name.
	Name string
	// Arguments is the raw JSON text of the arguments; it may be deliberately
	// invalid. Empty means "{}". On the Ollama wire arguments are a JSON
	// object inside the frame, so invalid text makes that frame invalid JSON.
	Arguments string
}

// Reply is what the scripted model answers to one chat request.
type Reply struct {
	// Thinking is the reasoning text, streamed before Text: Ollama's
	// message.thinking (only when the request did not set "think": false
	// and the model has the thinking capability), OpenAI-compatible
	// servers' delta.reasoning_content.
	Thinking string
	// Text is the answer text.
	Text string
	// ToolCalls are sent after Text; on OpenAI they make finish_reason
	// "tool_calls".
	ToolCalls []ToolCall
	// DoneReason, when set, is Ollama's done_reason and OpenAI's
	// finish_reason ("length" for an answer cut at the output limit);
	// empty means "stop", or "tool_calls" on OpenAI when there are calls.
	DoneReason string
	// PromptTokens and CompletionTokens are the reported usage. Zero means
	// what the server counts: prompt tokens by the rule of tokens.go (on
	// the Ollama wire, what it kept of a prompt over the window:
	// Request.PromptEval), completion tokens one per delta sent, as Ollama
	// streams one token a chunk.
	PromptTokens, CompletionTokens int
	// Fault, when not zero, makes the reply misbehave.
	Fault Fault
	// ChunkRunes is the size of text and thinking deltas in runes; 0 means 4.
	ChunkRunes int
	// TokenDelay is the pause between streamed frames.
	TokenDelay time.Duration
	// HoldAfterChunks > 0 stops a streamed reply after that many frames
	// until Hold is closed (or the client leaves): a test can look at what
	// the client shows mid-stream, whatever the machine's load.
	HoldAfterChunks int
	Hold            <-chan struct{}
	// Raw, when set, is written instead of anything built from the fields
	// above; only FirstTokenDelay, TokenDelay and CutAfterChunks apply.
	Raw *Raw
}

// Raw is a response written exactly as given: what a particular server
// sends, recorded or taken from its documentation.
type Raw struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the response. Without a Content-Type the wire's
	// own is sent: text/event-stream (OpenAI) or application/x-ndjson
	// (Ollama) for a 2xx, application/json otherwise.
	Header http.Header
	// Body is written line by line, each line flushed, with the reply's
	// TokenDelay between lines.
	Body string
}

// Fault describes how a reply misbehaves. The zero value is no fault.
type Fault struct {
	// Status, when non-zero, answers with this HTTP status and a wire-format
	// error body instead of a completion.
	Status int
	// Message is the error message with Status; empty means the status text.
	Message string
	// RetryAfter is sent as the Retry-After header (meant for 429).
	RetryAfter string
	// Header is added to the error response: a server's rate-limit
	// headers (X-RateLimit-Reset-Requests, X-RateLimit-Reset, ...).
	Header http.Header
	// QuoteAuthorization, with Status, ends the error message with the
	// request's Authorization header as received, as gateways and proxies
	// that echo the request in their error bodies do ("... (request
	// headers: Authorization: Bearer sk-...)"): a test can check that the
	// client shows no key.
	QuoteAuthorization bool
	// CutAfterChunks > 0 closes the connection abruptly (hijack and close,
	// no final frame, no terminating chunk) after that many frames.
	CutAfterChunks int
	// MalformedJSON sends one frame of invalid JSON after the first frame
	// (a non-streamed reply's whole body is then invalid).
	MalformedJSON bool
	// FirstTokenDelay delays the response, before its headers are written.
	FirstTokenDelay time.Duration
}

// Model is a model the server offers.
type Model struct {
	// Name as clients send it, e.g. "qwen3:8b".
	Name string
	// ContextLength is reported by /api/show as "<family>.context_length".
	ContextLength int
	// Capabilities as /api/show reports them: "completion", "tools",
	// "thinking", "vision", ...
	Capabilities []string
	// Family is the architecture, e.g. "qwen3"; it names model_info keys.
	Family string
	// RefuseMaxTokens makes the OpenAI wire refuse a request that sets
	// max_tokens, with OpenAI's own 400 for its reasoning models (they take
	// max_completion_tokens only).
	RefuseMaxTokens bool
	// Dimensions is the size of an embedding model's vectors
	// (DefaultDimensions when 0).
	Dimensions int
}

// DefaultModel is the model New serves when given none.
var DefaultModel = Model{
	Name:          "qwen3:8b",
	ContextLength: 40960,
	Capabilities:  []string{"completion", "tools", "thinking"},
	Family:        "qwen3",
}

// Request is one recorded request.
type Request struct {
	// Wire is "ollama" or "openai".
	Wire string
	// Path is the URL path, e.g. "/api/chat".
	Path string
	// Model is the requested model.
	Model string
	// Stream says whether the reply was streamed (Ollama defaults to true,
	// OpenAI to false).
	Stream bool
	// Messages are the request's messages as sent.
	Messages []json.RawMessage
	// Tools are the request's tool definitions as sent.
	Tools []json.RawMessage
	// Format is Ollama's "format" or OpenAI's "response_format".
	Format json.RawMessage
	// Think is Ollama's "think" or OpenAI's "reasoning_effort".
	Think json.RawMessage
	// Options is Ollama's "options"; for OpenAI, "stream_options".
	Options json.RawMessage
	// Images are the images of the request's messages, in order, decoded
	// from the wire (Ollama's base64 "images", OpenAI's image_url data:
	// URLs): images.go.
	Images [][]byte
	// MaxTokens is the output cap the request set: Ollama's
	// options.num_predict, OpenAI's max_tokens (or max_completion_tokens);
	// 0 for none. The server honours it: an answer longer than that many
	// deltas (a token each) is cut there with done_reason "length".
	MaxTokens int
	// PromptTokens is the server's count of the whole prompt: the
	// messages and the tool definitions, by the rule of tokens.go.
	PromptTokens int
	// Window is, on the Ollama wire, the context window the prompt runs
	// in: options.num_ctx (OllamaDefaultNumCtx without it), capped by the
	// model's ContextLength as Ollama caps it. A Model with ContextLength
	// 4096 is a model with a 4096-token window.
	Window int
	// PromptEval is, on the Ollama wire, what the server evaluates of the
	// prompt and reports as prompt_eval_count: PromptTokens when it fits
	// Window, else what is left after Ollama's cut (Truncated says which).
	PromptEval int
	// Truncated is, on the Ollama wire, how a prompt over Window was cut:
	// "" when it fit, TruncatedMessages or TruncatedStart. Ollama says
	// nothing of it to the client.
	Truncated string
	// Inputs are an embedding request's texts (/api/embed,
	// /v1/embeddings).
	Inputs []string
	// Body is the raw request body.
	Body []byte
	// Header is a copy of the request headers.
	Header http.Header
}

// Server is a running scripted model server.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:PORT.
	URL string

	ts        *httptest.Server // nil for NewInMemory
	mem       *memServer       // nil for New
	done      chan struct{}    // closed when the server shuts down
	closeOnce sync.Once
	inflight  atomic.Int64 // handlers running, for leak checks
	seq       atomic.Int64 // completion ids

	mu       sync.Mutex
	models   []Model
	queue    []Reply
	handle   func(Request) Reply
	requests []Request
	// embedFaults are the faults of the next embedding answers (embed.go).
	embedFaults []EmbedFault
}

// New starts a server on loopback offering models (DefaultModel when none)
// and closes it in tb.Cleanup.
func New(tb testing.TB, models ...Model) *Server {
	tb.Helper()
	s := newServer(models)
	s.ts = httptest.NewServer(s.handler())
	s.URL = s.ts.URL
	tb.Cleanup(s.Close)
	return s
}

// NewInMemory starts the same server on an in-memory network: its URL
// names no real host and only the client from Client reaches it. Started
// inside a testing/synctest bubble, the server, the client's connections
// and every wait of a Reply run on the bubble's clock, so retries, backoff
// and idle timeouts take no real time. It closes in tb.Cleanup.
func NewInMemory(tb testing.TB, models ...Model) *Server {
	tb.Helper()
	s := newServer(models)
	s.mem = newMemServer(s.handler())
	s.URL = "http://modeltest.internal"
	tb.Cleanup(s.Close)
	return s
}

func newServer(models []Model) *Server {
	if len(models) == 0 {
		models = []Model{DefaultModel}
	}
	return &Server{models: models, done: make(chan struct{})}
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.ollamaChat)
	mux.HandleFunc("GET /api/tags", s.ollamaTags)
	mux.HandleFunc("POST /api/show", s.ollamaShow)
	mux.HandleFunc("GET /api/version", s.ollamaVersion)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("Ollama is running")) })
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	mux.HandleFunc("GET /v1/models", s.openaiModels)
	mux.HandleFunc("POST /api/embed", s.ollamaEmbed)
	mux.HandleFunc("POST /v1/embeddings", s.openaiEmbed)
	return s.track(mux)
}

// Client is an HTTP client that reaches the server: the only one that can
// for NewInMemory, the httptest client for New.
func (s *Server) Client() *http.Client {
	if s.mem != nil {
		return s.mem.client
	}
	return s.ts.Client()
}

// Close stops the server: waiting handlers return at once, then the listener
// and connections close. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.mem != nil {
			s.mem.close()
			return
		}
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// OllamaURL is the base URL the Ollama client takes.
func (s *Server) OllamaURL() string { return s.URL }

// OpenAIURL is the base URL the OpenAI client takes (URL + "/v1").
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Enqueue appends replies to the script; each chat request, in either wire
// format, takes the next one. Requests the server rejects before generating
// (invalid JSON, unknown model, missing capability) take none.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets a function that computes the reply from the request when the
// queue is empty.
func (s *Server) Handle(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = fn
}

// Requests returns the recorded requests in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Pending is the number of scripted replies not yet taken.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// errNoReply is the message of the 500 sent when the script has run out.
const errNoReply = "modeltest: no scripted reply left"

// next takes the reply for req: the queue first, then the Handle func, else
// a 500 fault saying the script ran out.
func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	fn := s.handle
	s.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return Reply{Fault: Fault{Status: http.StatusInternalServerError, Message: errNoReply}}
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// SetModels replaces the models the server offers; none is a server with
// nothing pulled.
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = models
}

// offered is the models the server offers now.
func (s *Server) offered() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.models
}

func (s *Server) model(name string) (Model, bool) {
	for _, m := range s.offered() {
		if m.Name == name || m.Name == name+":latest" || m.Name+":latest" == name {
			return m, true
		}
	}
	return Model{}, false
}

func (m Model) has(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// chatBody is the union of the Ollama and OpenAI chat request fields the
// server looks at.
type chatBody struct {
	Model           string            `json:"model"`
	Stream          *bool             `json:"stream"`
	Messages        []json.RawMessage `json:"messages"`
	Tools           []json.RawMessage `json:"tools"`
	Format          json.RawMessage   `json:"format"`
	ResponseFormat  json.RawMessage   `json:"response_format"`
	Think           json.RawMessage   `json:"think"`
	ReasoningEffort json.RawMessage   `json:"reasoning_effort"`
	Options         json.RawMessage   `json:"options"`
	StreamOptions   json.RawMessage   `json:"stream_options"`
	// MaxTokens and MaxCompletionTokens are OpenAI's output caps.
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`

	// imageErr is what a real server would say of the images (images.go).
	imageErr error
}

// readChat reads and records a chat request. A body that is not valid JSON
// is recorded too and returned as err.
func (s *Server) readChat(wire string, r *http.Request) (Request, chatBody, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	req := Request{Wire: wire, Path: r.URL.Path, Body: buf.Bytes(), Header: r.Header.Clone()}
	var b chatBody
	if err == nil {
		err = json.Unmarshal(req.Body, &b)
	}
	if err == nil {
		req.Model = b.Model
		req.Messages = b.Messages
		req.Tools = b.Tools
		if wire == "ollama" {
			req.Stream = b.Stream == nil || *b.Stream
			req.Format, req.Think, req.Options = b.Format, b.Think, b.Options
			var opts struct {
				NumPredict int `json:"num_predict"`
			}
			if json.Unmarshal(b.Options, &opts) == nil && opts.NumPredict > 0 {
				req.MaxTokens = opts.NumPredict
			}
		} else {
			req.Stream = b.Stream != nil && *b.Stream
			req.Format, req.Think, req.Options = b.ResponseFormat, b.ReasoningEffort, b.StreamOptions
			for _, n := range []*int{b.MaxCompletionTokens, b.MaxTokens} {
				if n != nil && *n > 0 {
					req.MaxTokens = *n
				}
			}
		}
		req.Images, b.imageErr = requestImages(wire, b.Messages)
		s.countPrompt(&req, b)
	}
	s.record(req)
	return req, b, err
}

// reply takes the next reply for req and waits its first-token delay. A
// reply whose fault is an HTTP status is answered here, in the wire
// format's error shape (writeError); ok is false then, or when the client
// left while waiting, and the handler has nothing more to write.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, writeError func(http.ResponseWriter, int, string)) (rep Reply, ok bool) {
	rep = s.next(req)
	if !s.wait(r, rep.Fault.FirstTokenDelay) {
		return rep, false
	}
	if rep.Raw != nil {
		s.sendRaw(w, r, req.Wire, rep)
		return rep, false
	}
	if f := rep.Fault; f.Status != 0 {
		for k, vs := range f.Header {
			w.Header()[http.CanonicalHeaderKey(k)] = vs
		}
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		msg := cmp.Or(f.Message, http.StatusText(f.Status))
		if f.QuoteAuthorization {
			msg += " (request headers: Authorization: " + r.Header.Get("Authorization") + ")"
		}
		writeError(w, f.Status, msg)
		return rep, false
	}
	return rep, true
}

// sendRaw writes rep.Raw: its status and headers, then its body a line at
// a time.
func (s *Server) sendRaw(w http.ResponseWriter, r *http.Request, wire string, rep Reply) {
	raw := rep.Raw
	status := cmp.Or(raw.Status, http.StatusOK)
	for k, vs := range raw.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		switch {
		case status >= 300:
			w.Header().Set("Content-Type", "application/json")
		case wire == "ollama":
			w.Header().Set("Content-Type", "application/x-ndjson")
		default:
			w.Header().Set("Content-Type", "text/event-stream")
		}
	}
	w.WriteHeader(status)
	var frames [][]byte
	for line := range strings.Lines(raw.Body) {
		frames = append(frames, []byte(line))
	}
	rep.Fault.MalformedJSON = false
	s.send(w, r, rep, frames, nil)
}

// wait pauses for d, returning false if the client went away or the server
// is closing first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// promptTokens is the prompt token count reported: the reply's own, else
// what the server evaluated (tokens.go).
func promptTokens(req Request, rep Reply) int {
	switch {
	case rep.PromptTokens > 0:
		return rep.PromptTokens
	case req.Wire == "ollama":
		return req.PromptEval
	}
	return req.PromptTokens
}

// Message is the part of a recorded chat message that both wire formats
// share.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Images are the message's images, decoded (Ollama's "images", the
	// image_url parts of an OpenAI content array, whose text parts make
	// Content, joined by line breaks).
	Images [][]byte `json:"-"`
}

// ChatMessages decodes the recorded messages' roles, contents and images,
// for tests that check what a model was sent.
func (r Request) ChatMessages() ([]Message, error) {
	out := make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		var w struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(m, &w); err != nil {
			return nil, fmt.Errorf("message %d %s: %w", i, m, err)
		}
		out[i].Role = w.Role
		if parts, isParts, err := contentParts(w.Content); isParts {
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			out[i].Content, _ = partsText(parts)
		} else if len(w.Content) > 0 && string(w.Content) != "null" {
			if err := json.Unmarshal(w.Content, &out[i].Content); err != nil {
				return nil, fmt.Errorf("message %d %s: %w", i, m, err)
			}
		}
		imgs, err := messageImages(r.Wire, m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out[i].Images = imgs
	}
	return out, nil
}
