// Package mcp is Docent as an MCP server (Model Context Protocol): the
// edge through which the assistants people already use (Claude Desktop,
// Claude Code, Cursor and other MCP clients) work on their documents with
// the agent's own tools. It is a thin adapter over the agent's one tool
// registry: the tools MCP lists are agent.Tools(), with their names,
// descriptions and parameters, and a call runs through agent.CallTool, as
// the agent's do. `docent mcp` serves it over stdio (app/cli) and
// `docent --serve` at /mcp over Streamable HTTP (app/server, Handler).
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Options are what a server is built on.
type Options struct {
	// Agent returns the agent on the settings in effect; it is asked at
	// every call, so that a change in Settings applies to the next one.
	Agent func() *agent.Agent
	// ReadOnly, when set and true, lists and runs only read-only tools.
	// It is asked when a client connects (the tools it lists) and at every
	// call (a switch turned on refuses the writes of a client connected
	// before).
	ReadOnly func(ctx context.Context) bool
	// Edge names the transport in the log of writes: "stdio" or "http".
	Edge string
	// Version is Docent's, sent to clients as the server's.
	Version string
	// Logger is where writes are recorded and internal errors logged; nil
	// means slog.Default().
	Logger *slog.Logger
	// ModelCall, when set, is asked before a tool that calls a model
	// (agent.Tool.CallsModel) runs: an error refuses the call, as a tool
	// error with its message (a server's per-minute limit).
	ModelCall func(ctx context.Context) error
}

// ready returns the agent calls run on, or why there is none.
func (o Options) ready() (*agent.Agent, error) {
	a := o.Agent()
	if a == nil || a.DB == nil {
		return nil, fault.Errorf(fault.Unavailable, "this server runs without the agent")
	}
	return a, nil
}

// toolEnv is what a call through MCP may touch: the agent's store,
// extractor, providers and embedder (search_docs by meaning), as the
// agent's own turns have them; no current document.
func (o Options) toolEnv(a *agent.Agent) *agent.ToolEnv {
	return &agent.ToolEnv{DB: a.DB, Extractor: a.Extractor, Providers: a.Providers, Embedder: a.Embedder, Logger: o.logger()}
}

func (o Options) readOnly(ctx context.Context) bool { return o.ReadOnly != nil && o.ReadOnly(ctx) }

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// Instructions tell a client's model what Docent is and how its tools fit
// together; MCP clients put them in the model's context.
const Instructions = "Docent holds the user's documents (PDFs, scans, photos, text) with their text, and turns them into structured data: " +
	"a schema says what to extract, an extraction prompt (linked to a schema) says how, and run_extraction stores the result with evidence (the page each value was found on). " +
	"Find documents with search_docs or list_documents; read one with get_ocr_text (document_id). " +
	"Before create_schema call help_schemas and validate_schema; before create_prompt call help_prompts. " +
	"Tools that act on one document take its document_id."

// NewServer returns an MCP server with the agent's tools (only the
// read-only ones when readOnly), the documents, schemas and prompts as
// resources, and prompts for the jobs people ask for.
func NewServer(opts Options, readOnly bool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "docent", Title: "Docent", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
	})
	for _, t := range agent.Tools() {
		if readOnly && t.Access != agent.ReadOnly {
			continue
		}
		s.AddTool(toolOf(t), opts.handler(t))
	}
	addResources(s, opts)
	addPrompts(s, opts)
	s.AddReceivingMiddleware(sendableErrors)
	return s
}

// toolOf is how MCP lists a tool: the registry's name, description and
// parameters, with document_id required for a tool that would otherwise
// act on the current document (an MCP client has none), and annotations
// from what the tool declares it changes.
func toolOf(t agent.Tool) *sdk.Tool {
	ann := &sdk.ToolAnnotations{
		Title:          t.DisplayTitle(),
		ReadOnlyHint:   t.Access == agent.ReadOnly,
		IdempotentHint: t.Access == agent.ReadOnly || t.Idempotent,
		OpenWorldHint:  new(false), // Docent's own store; a model call is not the world
	}
	if t.Access == agent.ReadWrite {
		ann.DestructiveHint = new(t.Destructive())
	}
	return &sdk.Tool{
		Name: t.Name, Title: t.DisplayTitle(), Description: t.Description,
		InputSchema: inputSchema(t), Annotations: ann,
	}
}

// documentIDProperty is document_id as MCP lists it on tools that have no
// such parameter of their own.
const documentIDProperty = `{"type":"string","minLength":1,"description":"Id of the document to act on (search_docs and list_documents find it)."}`

// inputSchema is the tool's parameter schema, with a required document_id
// on an OnDocument tool.
func inputSchema(t agent.Tool) json.RawMessage {
	if !t.OnDocument {
		return t.Parameters
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(t.Parameters, &p); err != nil {
		panic("agent tool " + t.Name + ": parameters: " + err.Error()) // the registry's own tests check them
	}
	var props map[string]json.RawMessage
	var required []string
	_ = json.Unmarshal(p["properties"], &props)
	_ = json.Unmarshal(p["required"], &required)
	if _, ok := props["document_id"]; !ok {
		props["document_id"] = json.RawMessage(documentIDProperty)
	}
	if !slices.Contains(required, "document_id") {
		required = append([]string{"document_id"}, required...)
	}
	p["properties"], _ = json.Marshal(props)
	p["required"], _ = json.Marshal(required)
	out, _ := json.Marshal(p)
	return out
}

// handler runs one tool for MCP: as the user's own call (no scope: the
// client asks the person, as MCP clients do), through agent.CallTool, which
// checks the arguments. Every failure is a tool error with the message the
// agent would get; none is a protocol error.
func (o Options) handler(t agent.Tool) sdk.ToolHandler {
	keepID := t.OnDocument && ownsDocumentID(t) // the tool's schema, read once, not at every call
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if t.Access == agent.ReadWrite && o.readOnly(ctx) {
			return errorResult(t.Name + " changes what Docent holds, and Docent's MCP server is read-only (Settings); only read-only tools run"), nil
		}
		a, err := o.ready()
		if err != nil {
			return errorResult(o.errorMessage(ctx, "tool "+t.Name, err)), nil
		}
		if t.CallsModel && o.ModelCall != nil {
			if err := o.ModelCall(ctx); err != nil {
				return errorResult(o.errorMessage(ctx, "tool "+t.Name, err)), nil
			}
		}
		env := o.toolEnv(a)
		args := req.Params.Arguments
		if t.OnDocument {
			id, rest, msg := takeDocumentID(t.Name, keepID, args)
			if msg != "" {
				return errorResult(msg), nil
			}
			env.DocumentID, args = id, rest
		}
		// What the call changes is journaled as this client's, through MCP.
		ctx = storage.WithActor(ctx, storage.Actor{Edge: storage.EdgeMCP, Name: clientName(req)})
		stop := startProgress(ctx, req, t, env, args)
		res := agent.CallTool(ctx, env, t.Name, args)
		stop()
		if t.Access == agent.ReadWrite && res.Success {
			o.recordWrite(ctx, req, t, res)
		}
		return resultOf(res), nil
	}
}

// takeDocumentID takes document_id out of the arguments of an OnDocument
// tool (named tool): the document the call acts on. A tool with a
// document_id parameter of its own (keep) keeps it in its arguments; the
// others get theirs without it. msg says what is wrong when there is none.
func takeDocumentID(tool string, keep bool, args json.RawMessage) (id string, rest json.RawMessage, msg string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return "", args, "the arguments of " + tool + " must be a JSON object with document_id"
	}
	raw, ok := m["document_id"]
	if !ok {
		return "", args, "document_id is required: the id of the document " + tool + " acts on (search_docs and list_documents find it)"
	}
	if err := json.Unmarshal(raw, &id); err != nil || strings.TrimSpace(id) == "" {
		return "", args, "document_id must be a document's id, a non-empty string"
	}
	if keep {
		return id, args, ""
	}
	delete(m, "document_id")
	rest, err := json.Marshal(m)
	if err != nil {
		return "", args, "the arguments of " + tool + " must be a JSON object"
	}
	return id, rest, ""
}

// ownsDocumentID reports whether the tool has a document_id parameter of
// its own.
func ownsDocumentID(t agent.Tool) bool {
	var own struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(t.Parameters, &own)
	_, ok := own.Properties["document_id"]
	return ok
}

// resultOf is a tool's result as MCP sends it: the JSON the agent gets as
// structured content (an object; another value is wrapped as {"result":
// v}), and as text, after the call's one-line preview when it has one.
// An error is a tool error (isError) with the agent's message.
func resultOf(res agent.ToolResult) *sdk.CallToolResult {
	if !res.Success {
		return errorResult(res.Error)
	}
	data := bytes.TrimSpace(res.Result)
	if len(data) == 0 {
		data = []byte("null")
	}
	var structured any = json.RawMessage(data)
	if data[0] != '{' {
		structured = map[string]json.RawMessage{"result": data}
	}
	var content []sdk.Content
	if res.Preview != "" {
		content = append(content, &sdk.TextContent{Text: res.Preview})
	}
	text := string(data)
	var s string
	if json.Unmarshal(data, &s) == nil {
		text = s // a text result (help_schemas) reads as text
	}
	content = append(content, &sdk.TextContent{Text: text})
	return &sdk.CallToolResult{Content: content, StructuredContent: structured}
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: msg}},
		StructuredContent: map[string]string{"error": msg},
	}
}

// errorMessage is what a person or model reads for err, as every edge
// shows it (fault.Describe); an internal error is logged once.
func (o Options) errorMessage(ctx context.Context, op string, err error) string {
	return fault.ErrorMessage(fault.Report(ctx, o.logger(), op, err))
}
