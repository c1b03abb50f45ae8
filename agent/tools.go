package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Access is a tool's access class: whether calling it needs approval.
type Access string

// Access classes.
const (
	ReadOnly  Access = "read_only"  // never needs approval
	ReadWrite Access = "read_write" // needs approval unless auto-approved
)

// Tool is the one definition of a tool: what the model sees, what
// GET /api/chat/tools lists, and dispatch all derive from it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Title is the tool's name for people ("Read a document's text"), for
	// clients that list tools to people (MCP); DisplayTitle falls back to
	// the name.
	Title string `json:"-"`
	// OnDocument is set on tools that act on the current document
	// (ToolEnv.DocumentID) when no document_id is given: an edge that has
	// no current document (MCP) makes document_id required for them.
	OnDocument bool `json:"-"`
	// Parameters is a JSON Schema object in the OpenAI function-calling
	// format, with additionalProperties false.
	Parameters json.RawMessage `json:"parameters"`
	Access     Access          `json:"access"`
	// Changes says what a call would change, before it runs: every
	// read-write tool has it. The unattended scope and the "always
	// approve" rule decide from it.
	Changes func(ctx context.Context, env *ToolEnv, args json.RawMessage) ([]Change, error) `json:"-"`
	// Ops are the operations (OpCreate, OpUpdate, OpDelete, OpLink) its
	// Changes may return, declared so that an edge can describe a tool
	// before any call (MCP's annotations): a tool with OpDelete destroys.
	Ops []string `json:"-"`
	// Overwrites is set on read-write tools whose update replaces what was
	// there without keeping it as a version (a document's name, tags and
	// metadata; a tag; an extraction's field): destructive, like a delete.
	Overwrites bool `json:"-"`
	// Idempotent is set on read-write tools that a second call with the
	// same arguments changes nothing more.
	Idempotent bool `json:"-"`
	// Resource, set on some read-only tools, says their result is also
	// something to read without a call: an edge that offers resources
	// (MCP) lists it as one, a collection or one item of it by id.
	Resource *Resource `json:"-"`
	// HeadlessLimit caps how many times an unattended run may call the
	// tool in one turn (0: no cap). What the call may change at all is the
	// run's Scope's to say.
	HeadlessLimit int `json:"-"`
	// CallsModel is set on tools whose calls may call a model (an
	// extraction, an embedding of the query), so that an edge can hold
	// them to its per-minute limit on model-calling requests.
	CallsModel bool `json:"-"`
	// ChangesExtraction is set on tools whose calls change the document's
	// extraction, so that clients show it again after them.
	ChangesExtraction bool `json:"changes_extraction,omitempty"`
	// Summarize says what a call will do, for people (summary.go): every
	// tool has it.
	Summarize Summarizer `json:"-"`
	// Run does the work. Arguments have been checked against Parameters.
	// Errors are rendered for the model by CallTool.
	Run func(ctx context.Context, env *ToolEnv, args json.RawMessage) (any, error) `json:"-"`
}

// DisplayTitle is the tool's title, or its name in words ("search_docs":
// "Search docs") when it declares none.
func (t Tool) DisplayTitle() string {
	if t.Title != "" {
		return t.Title
	}
	words := strings.ReplaceAll(t.Name, "_", " ")
	return strings.ToUpper(words[:1]) + words[1:]
}

// Destructive reports whether a call may destroy what is there: a
// read-write tool that deletes or overwrites.
func (t Tool) Destructive() bool {
	return t.Access == ReadWrite && (t.Overwrites || slices.Contains(t.Ops, OpDelete))
}

// Resource is a read-only tool's result offered as something to read: a
// collection ("documents") read whole, or one item of it named by the
// tool's IDParam.
type Resource struct {
	// Name is the resource's name: the collection's ("schemas") or, for
	// one item, the item's ("schema").
	Name string
	// Collection is the plural the URIs say ("schemas").
	Collection string
	// IDParam is the parameter that names one item ("schema_revid"); ""
	// for the collection.
	IDParam string
	// Args are the arguments every read sends besides the id ({"limit":
	// 100}).
	Args map[string]any
	// Title and Description are for people choosing what to attach.
	Title, Description string
}

// ResourceArgs are the arguments of a read of r: its Args, and id as its
// IDParam when it names one item.
func (r *Resource) ResourceArgs(id string) map[string]any {
	args := maps.Clone(r.Args)
	if args == nil {
		args = map[string]any{}
	}
	if r.IDParam != "" {
		args[r.IDParam] = id
	}
	return args
}

// ToolEnv is what a tool call may touch: the store, the current document,
// and the turn's working state (tools update it as they run).
type ToolEnv struct {
	DB        *storage.DB
	Extractor *Extractor
	Providers *provider.Registry
	// Embedder, when its model is set, makes search_docs search by meaning
	// too; nil or without a model, by words.
	Embedder *Embedder
	// DocumentID is the current document: the one the turn is about.
	DocumentID string
	// State is the working state; CallTool creates one when it is nil.
	State *WorkingState
	// SearchCalls counts search_docs and open_citation calls this turn
	// (MaxSearchCalls of them are allowed); CallTool makes one when nil.
	SearchCalls *int
	// Scope, when set, bounds what read-write calls may change: an
	// unattended run's (NewScope).
	Scope *Scope
	// Logger is where a call's internal errors are logged; nil means
	// slog.Default().
	Logger *slog.Logger

	// cites numbers the citable results of a turn's calls (citations.go);
	// nil outside a turn, where results carry no cite.
	cites *citeBook
}

// ToolResult is the outcome of one tool call, as the tool_result event and
// the tool message carry it.
type ToolResult struct {
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result,omitempty"`
	// Preview is a one-line summary for people ("created schema invoice v1
	// (srv_…)").
	Preview string `json:"preview,omitempty"`
	Error   string `json:"error,omitempty"`
	// Created names what the call created.
	Created []Ref `json:"-"`
	// Refused is set when the call was outside the turn's scope and did
	// not run; Error says why.
	Refused bool `json:"-"`
}

// Content is what the model is shown for this call: the result, or
// {"error": message}.
func (r ToolResult) Content() string {
	if !r.Success {
		return string(mustJSON(map[string]string{"error": r.Error}))
	}
	if len(r.Result) == 0 {
		return "null"
	}
	return string(r.Result)
}

// Limits of tool results.
const (
	// TextCap is the default cap, in characters, of text in a result.
	TextCap = 4000
	// CitationCap caps the chunk text open_citation returns.
	CitationCap = 1500
	// ResultCap caps a whole result's JSON; beyond it the result is cut
	// and marked, which only happens when a tool's own caps are not enough.
	ResultCap = 16000
	// MaxSearchCalls is how many search_docs + open_citation calls a turn
	// may make.
	MaxSearchCalls = 5
)

// Tools returns the registry, in catalogue order (docs/tools.md).
func Tools() []Tool { return slices.Clone(registry()) }

// ToolByName returns the tool with this name.
func ToolByName(name string) (Tool, bool) {
	i := slices.IndexFunc(registry(), func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return registry()[i], true
}

// ReadOnlyToolNames returns the names of the tools that never need approval.
func ReadOnlyToolNames() []string { return toolNames(ReadOnly) }

// ReadWriteToolNames returns the names of the tools that need approval.
func ReadWriteToolNames() []string { return toolNames(ReadWrite) }

func toolNames(a Access) []string {
	var out []string
	for _, t := range registry() {
		if t.Access == a {
			out = append(out, t.Name)
		}
	}
	return out
}

// ProviderTools returns the registry as the provider's tool definitions.
func ProviderTools() []provider.Tool {
	out := make([]provider.Tool, len(registry()))
	for i, t := range registry() {
		out[i] = provider.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return out
}

// registry is every tool (tools_*.go define them), in catalogue order, as
// docs/tools.md lists them: read-only first. It is built on first use, not
// at package init, which every docent process pays, reader children and
// commands that never meet a tool included.
var registry = sync.OnceValue(func() []Tool {
	tools := slices.Concat(documentTools(), schemaTools(), promptTools(), tagTools(), extractionTools(), searchTools(), dataTools(), historyTools(), helpTools())
	slices.SortStableFunc(tools, func(a, b Tool) int {
		return slices.Index(catalogueOrder, a.Name) - slices.Index(catalogueOrder, b.Name)
	})
	return tools
})

// catalogueOrder is the order of docs/tools.md.
var catalogueOrder = []string{
	"get_ocr_text", "get_document", "list_documents", "get_extraction_result",
	"get_schema", "list_schemas", "validate_schema", "validate_against_schema",
	"get_prompt", "list_prompts", "get_tag", "list_tags", "get_history", "help_schemas", "help_prompts",
	"list_models", "search_docs", "open_citation", "describe_data", "query_data",
	"run_extraction", "update_extraction_field", "update_document", "delete_document",
	"create_schema", "update_schema", "delete_schema",
	"create_prompt", "update_prompt", "delete_prompt",
	"create_tag", "update_tag", "delete_tag",
}

// validators holds each tool's compiled parameter schema, built once.
var (
	validatorsOnce sync.Once
	validators     map[string]*schema.Compiled
	validatorsErr  error
)

func parameterValidator(name string) (*schema.Compiled, error) {
	validatorsOnce.Do(func() {
		validators = map[string]*schema.Compiled{}
		for _, t := range registry() {
			c, err := compileParameters(t)
			if err != nil {
				validatorsErr = err
				return
			}
			validators[t.Name] = c
		}
	})
	if validatorsErr != nil {
		return nil, validatorsErr
	}
	return validators[name], nil
}

// compileParameters compiles a tool's parameter schema with agent/schema,
// wrapped as a response_format.
func compileParameters(t Tool) (*schema.Compiled, error) {
	rf := schema.ResponseFormat{Type: "json_schema", JSONSchema: schema.JSONSchema{Name: t.Name, Schema: t.Parameters, Strict: true}}
	c, err := schema.Compile(rf)
	if err != nil {
		detail := err.Error()
		if ps := schema.Errors(err); len(ps) > 0 {
			detail = problemList(ps)
		}
		return nil, fmt.Errorf("tool %s: parameters: %s", t.Name, detail)
	}
	return c, nil
}

// CallTool runs one tool call. It never panics: unknown tools, arguments
// that are not JSON or do not match the tool's parameters, store errors and
// panics all come back as error results that say what was wrong.
func CallTool(ctx context.Context, env *ToolEnv, name string, args json.RawMessage) (res ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = ToolResult{Error: toolErrorMessage(ctx, env, name, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))}
		}
	}()
	t, ok := ToolByName(name)
	if !ok {
		return ToolResult{Error: fmt.Sprintf("unknown tool %q; the tools are: %s", name, strings.Join(catalogueOrder, ", "))}
	}
	if env.State == nil {
		env.State = &WorkingState{}
	}
	if env.SearchCalls == nil {
		env.SearchCalls = new(int)
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return ToolResult{Error: fmt.Sprintf("the arguments of %s are not valid JSON (%s); send one JSON object", name, jsonError(string(args)))}
	}
	v, err := parameterValidator(name)
	if err != nil {
		return ToolResult{Error: toolErrorMessage(ctx, env, name, err)}
	}
	if problems := v.Validate(args); len(problems) > 0 {
		return ToolResult{Error: fmt.Sprintf("invalid arguments for %s: %s", name, argumentProblems(problems))}
	}
	if env.Scope != nil && t.Access == ReadWrite {
		changes, err := t.Changes(ctx, env, args)
		if err != nil {
			return ToolResult{Error: toolErrorMessage(ctx, env, name, err)}
		}
		if why := env.Scope.check(changes); why != "" {
			env.Scope.refuse(name, why)
			return ToolResult{Error: "refused: " + why, Refused: true}
		}
	}
	out, err := t.Run(ctx, env, args)
	if err != nil {
		return ToolResult{Error: toolErrorMessage(ctx, env, name, err)}
	}
	var preview string
	var created []Ref
	if p, ok := out.(previewed); ok {
		out, preview, created = p.value, p.preview, p.created
	}
	if env.Scope != nil {
		env.Scope.noteCreated(created)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return ToolResult{Error: toolErrorMessage(ctx, env, name, fmt.Errorf("encode the result: %w", err))}
	}
	return ToolResult{Success: true, Result: capResult(data), Preview: preview, Created: created}
}

// argumentProblems renders argument validation problems, naming arguments
// rather than JSON pointers where it can.
func argumentProblems(ps []schema.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		path := strings.TrimPrefix(p.Path, "/")
		if path == "" {
			parts[i] = p.Message
		} else {
			parts[i] = strings.ReplaceAll(path, "/", ".") + ": " + p.Message
		}
	}
	return strings.Join(parts, "; ")
}

// toolErrorMessage is the tool result's text for err, as every edge shows
// it (fault.Describe): a domain or provider error's message, which says what
// to do; an internal error is logged once, with the tool's name, and read
// as one sentence.
func toolErrorMessage(ctx context.Context, env *ToolEnv, name string, err error) string {
	return fault.ErrorMessage(fault.Report(ctx, loggerOr(env.Logger), "tool "+name, err))
}

// previewed is a result with its one-line preview and what the call
// created; CallTool unwraps it.
type previewed struct {
	value   any
	preview string
	created []Ref
}

// made adds what the call created.
func (p previewed) made(kind, id string) previewed {
	p.created = append(p.created, Ref{Kind: kind, ID: id})
	return p
}

func withPreview(v any, format string, args ...any) previewed {
	return previewed{value: v, preview: fmt.Sprintf(format, args...)}
}

// capResult cuts a result whose JSON exceeds ResultCap, keeping it JSON: the
// cut text becomes a string with a marker.
func capResult(data []byte) json.RawMessage {
	if utf8.RuneCount(data) <= ResultCap {
		return data
	}
	text, _ := capText(string(data), ResultCap, "ask for less: a smaller limit, a later skip, or one page")
	return mustJSON(map[string]any{"truncated": true, "partial_json": text})
}

// capText cuts s to at most max characters (runes), appending a marker that
// says how many characters were left out and how to get them (more). It
// reports whether s was cut.
func capText(s string, max int, more string) (string, bool) {
	head, cut := textfmt.Cut(s, max)
	if !cut {
		return s, false
	}
	marker := fmt.Sprintf("\n[truncated: %s more characters", textfmt.Thousands(utf8.RuneCountInString(s[len(head):])))
	if more != "" {
		marker += "; " + more
	}
	return head + marker + "]", true
}

// decodeArgs returns a Run function that decodes checked arguments into A.
func decodeArgs[A any](fn func(ctx context.Context, env *ToolEnv, a A) (any, error)) func(context.Context, *ToolEnv, json.RawMessage) (any, error) {
	return func(ctx context.Context, env *ToolEnv, raw json.RawMessage) (any, error) {
		var a A
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return nil, fault.Errorf(fault.Invalid, "invalid arguments: %v", err)
		}
		return fn(ctx, env, a)
	}
}

// params builds a parameter schema: an object with these properties (each a
// JSON Schema object literal) of which required are required, and no others.
func params(required []string, props map[string]string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		b.WriteString(props[k])
	}
	b.WriteString(`},"required":`)
	if required == nil {
		required = []string{}
	}
	b.Write(mustJSON(required))
	b.WriteString(`,"additionalProperties":false}`)
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(b.String())); err != nil {
		panic(fmt.Sprintf("tool parameters: %v: %s", err, b.String()))
	}
	return out.Bytes()
}

// Parameter fragments shared by several tools.
const (
	pSkip       = `{"type":"integer","minimum":0,"description":"How many items to skip (for paging). Default 0."}`
	pLimit      = `{"type":"integer","minimum":1,"maximum":100,"description":"Page size, 1-100. Default 20."}`
	pNameSearch = `{"type":"string","description":"Keep only names containing this text (case-insensitive)."}`
	pTagIDs     = `{"type":"array","items":{"type":"string"},"description":"Tag ids; an item must have all of them."}`
	pDocumentID = `{"type":"string","description":"Document id. Default: the current document."}`
)

// defaultListLimit is the page size of list_* tools when none is given.
const defaultListLimit = 20

func listLimit(n int) int {
	if n <= 0 {
		return defaultListLimit
	}
	return n
}

// documentID returns id or, when it is empty, the current document.
func (env *ToolEnv) documentID(id string) (string, error) {
	if id = strings.TrimSpace(id); id != "" {
		return id, nil
	}
	if env.DocumentID == "" {
		return "", fault.Errorf(fault.Invalid, "no document_id given and this conversation has no current document; pass document_id (list_documents finds one)")
	}
	return env.DocumentID, nil
}
