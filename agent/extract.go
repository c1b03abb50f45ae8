package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// extractInstruction opens the system message of every extraction; the
// prompt's own content follows it.
const extractInstruction = "You extract structured data from documents. Answer with one JSON object that matches the given schema; use null for values the document does not contain; never invent values."

// Extractor runs extraction prompts on documents.
type Extractor struct {
	DB        *storage.DB
	Providers *provider.Registry
	// DefaultModel is used when neither the call nor the prompt names a
	// model ("ollama/qwen3:8b" form).
	DefaultModel string
	// Model, when set, is used whatever the prompt names: the model the
	// user asked for this run (--model), which a call's own Model still
	// overrides.
	Model string
	// EnsureWords, when set, stores the positioned words of a document
	// imported before words were (the importer reads them again), so that
	// its values get boxes; grounding goes on without them if it fails.
	EnsureWords func(ctx context.Context, documentID string) error
	// Logger is where extractions log; nil means slog.Default().
	Logger *slog.Logger
}

// ExtractRequest names what to run on what.
type ExtractRequest struct {
	DocumentID, PromptRevID string
	// Model is an optional override, provider-prefixed ("ollama/qwen3:8b").
	Model string
}

// Run runs one prompt revision on one document: the prompt's content as the
// instruction, the document's text with page markers, the prompt's linked
// schema as structured output. It parses and validates the model's JSON
// against the schema, asks the model once more with the validation errors
// when it does not validate, and stores the extraction (prompt revision,
// model id, raw output, value, validation status and errors, summed usage,
// and whether the server cut the prompt to fit the model's window, with a
// note saying what the model saw).
// The stored extraction is returned even when invalid (status invalid,
// errors set); only failures to get any answer from the model, or missing
// inputs, are errors.
func (x *Extractor) Run(ctx context.Context, req ExtractRequest) (storage.Extraction, error) {
	ne, err := x.Try(ctx, req)
	if err != nil {
		return storage.Extraction{}, err
	}
	return x.DB.CreateExtraction(ctx, ne)
}

// Try does what Run does without storing anything: it returns the
// extraction Run would store. An evaluation runs prompts this way, so that
// measuring a prompt or a model never replaces a document's data.
func (x *Extractor) Try(ctx context.Context, req ExtractRequest) (storage.NewExtraction, error) {
	ctx = storage.WithUsageScope(ctx, storage.UsageScope{DocumentID: req.DocumentID})
	job, err := x.prepare(ctx, req)
	if err != nil {
		return storage.NewExtraction{}, err
	}
	if windows := x.pageWindows(ctx, job); len(windows) > 1 {
		return x.tryWindows(ctx, job, windows)
	}

	messages := []provider.Message{
		{Role: "system", Content: extractInstruction + "\n\n" + job.prompt.Content},
		{Role: "user", Content: job.text},
	}
	resp, err := job.provider.Chat(ctx, provider.Request{Model: job.model, Messages: messages, Format: job.format}, nil)
	if err != nil {
		return storage.NewExtraction{}, job.callError(err)
	}
	usage := resp.Usage
	raw := resp.Text
	value, problems := job.check(resp)
	// The server's cut of the prompt, if it made one: the model answered
	// from part of the document.
	truncated := resp.PromptTruncated

	// An answer cut at the output limit is not asked for again: the repair
	// would send it back, leaving even less room for the next.
	if len(problems) > 0 && !resp.Truncated {
		messages = append(messages,
			provider.Message{Role: "assistant", Content: raw},
			provider.Message{Role: "user", Content: repairMessage(problems)})
		resp, err := job.provider.Chat(ctx, provider.Request{Model: job.model, Messages: messages, Format: job.format}, nil)
		switch {
		case err != nil && ctx.Err() != nil:
			return storage.NewExtraction{}, job.callError(err)
		case err != nil:
			// The first answer is still an answer: store it as it is
			// rather than lose it to a failed second attempt.
			x.logger().WarnContext(ctx, "extraction repair call failed; storing the first answer",
				"document", job.doc.ID, "prompt_revid", job.prompt.PromptRevID, "model", job.modelID, "err", err)
		default:
			usage.PromptTokens += resp.Usage.PromptTokens
			usage.CompletionTokens += resp.Usage.CompletionTokens
			raw = resp.Text
			value, problems = job.check(resp)
			if truncated == nil {
				truncated = resp.PromptTruncated
			}
		}
	}
	var note string
	if truncated != nil {
		pages := "1 page"
		if job.pages != 1 {
			pages = fmt.Sprintf("%d pages", job.pages)
		}
		note = truncated.Explain(fmt.Sprintf("the prompt for this document (%s, %s characters)",
			pages, textfmt.Thousands(utf8.RuneCountInString(job.text))))
		// The note tells the user (docent extract prints it); the log is
		// for debugging, not a second warning on the CLI's stderr.
		x.logger().DebugContext(ctx, "the model saw only part of the document: the server cut the prompt to fit the context window",
			"document", job.doc.ID, "model", job.modelID, "kept_tokens", truncated.Kept, "window_tokens", truncated.Window)
	}

	return x.extraction(ctx, job, answer{raw: raw, value: value, problems: problems, usage: usage, truncated: truncated != nil, note: note}), nil
}

// answer is what the model's calls for one extraction gave.
type answer struct {
	raw       string
	value     json.RawMessage // nil when no JSON came
	problems  []schema.Problem
	usage     provider.Usage
	truncated bool   // the server cut a prompt
	note      string // what a person should know about how it was made
}

// extraction is the extraction to store of an answer: validated, grounded
// in the document, with the run's prompt, model and usage.
func (x *Extractor) extraction(ctx context.Context, job *extractJob, a answer) storage.NewExtraction {
	status := storage.ValidationValid
	if len(a.problems) > 0 {
		status = storage.ValidationInvalid
	}
	if a.problems == nil {
		a.problems = []schema.Problem{}
	}
	return storage.NewExtraction{
		DocumentID:       job.doc.ID,
		PromptRevID:      job.prompt.PromptRevID,
		Model:            job.modelID,
		RawOutput:        a.raw,
		Value:            a.value,
		ValidationStatus: status,
		ValidationErrors: mustJSON(a.problems),
		Evidence:         x.ground(ctx, job, a.value),
		PromptTokens:     a.usage.PromptTokens,
		CompletionTokens: a.usage.CompletionTokens,
		PromptTruncated:  a.truncated,
		Note:             a.note,
	}
}

// ground returns the evidence of an answer in its document, reading the
// document's words first when it has none stored yet.
func (x *Extractor) ground(ctx context.Context, job *extractJob, value json.RawMessage) json.RawMessage {
	if value == nil {
		return nil
	}
	if x.EnsureWords != nil {
		if err := x.EnsureWords(ctx, job.doc.ID); err != nil {
			x.logger().WarnContext(ctx, "grounding without word boxes", "document", job.doc.ID, "err", err)
		}
	}
	ev, err := groundValue(ctx, x.DB, job.doc.ID, job.texts, value)
	if err != nil {
		x.logger().WarnContext(ctx, "extraction stored without evidence", "document", job.doc.ID, "err", err)
	}
	return ev
}

// extractJob is everything a run needs, gathered and checked before the
// model is called.
type extractJob struct {
	doc      storage.Document
	prompt   storage.PromptRevision
	pages    int
	texts    []string // each page's text, for grounding the answer
	text     string   // the user message: the document with page markers
	format   json.RawMessage
	compiled *schema.Compiled
	modelID  string // full id, "ollama/qwen3:8b"
	model    string // without its provider prefix
	provider provider.Provider
}

// prepare loads and checks the inputs of a run.
func (x *Extractor) prepare(ctx context.Context, req ExtractRequest) (*extractJob, error) {
	prompt, err := x.DB.GetPromptRevision(ctx, req.PromptRevID)
	if err != nil {
		return nil, err
	}
	doc, err := x.DB.GetDocument(ctx, req.DocumentID)
	if err != nil {
		return nil, err
	}
	modelID := cmp.Or(req.Model, x.Model, prompt.Model, x.DefaultModel)
	if modelID == "" {
		return nil, fault.Errorf(fault.Invalid, "no model chosen: pass --model, set DOCENT_MODEL, or give the prompt a model")
	}
	if prompt.SchemaRevID == "" {
		return nil, fault.Errorf(fault.Invalid, "prompt %s has no schema: link one with update_prompt (schema_id)", prompt.Name)
	}
	if doc.Status != storage.StatusReady {
		msg := fmt.Sprintf("document %s cannot be extracted: its status is %s", doc.Name, doc.Status)
		if doc.Error != "" {
			msg += " (" + doc.Error + ")"
		}
		return nil, fault.Errorf(fault.Invalid, "%s", msg)
	}
	pages, err := x.DB.DocumentText(ctx, doc.ID)
	if err != nil {
		return nil, err
	}
	text, ok := pagesText(pages)
	if !ok {
		return nil, fault.Errorf(fault.Invalid, "document %s has no text to extract from", doc.Name)
	}

	srev, err := x.DB.GetSchemaRevision(ctx, prompt.SchemaRevID)
	if err != nil {
		return nil, err
	}
	rf, compiled, err := compileStored(srev)
	if err != nil {
		return nil, err
	}

	p, model, err := x.Providers.For(modelID)
	if err != nil {
		if provider.ErrorKind(err) != "" {
			return nil, err
		}
		return nil, fault.Errorf(fault.Invalid, "%v", err)
	}
	return &extractJob{
		doc: doc, prompt: prompt, pages: len(pages), texts: pages, text: text,
		format: rf.JSONSchema.Schema, compiled: compiled,
		modelID: modelID, model: model, provider: p,
	}, nil
}

// callError says which document a failed model call was for; a prompt too
// long for the model also says how much would have been sent, since the
// document is never cut to fit.
func (j *extractJob) callError(err error) error {
	if errors.Is(err, provider.ErrContextOverflow) {
		return fmt.Errorf("document %s: %d pages, %d characters: %w",
			j.doc.Name, j.pages, utf8.RuneCountInString(j.text), err)
	}
	return fmt.Errorf("extracting from document %s with %s: %w", j.doc.Name, j.modelID, err)
}

// check parses a model answer and validates it against the job's schema. The
// value is nil when the answer holds no JSON; that is then the one problem,
// which says so when the answer was cut at the model's output limit.
func (j *extractJob) check(resp provider.Response) (json.RawMessage, []schema.Problem) {
	value, err := parseAnswer(resp.Text)
	if err != nil {
		msg := "not JSON: " + err.Error()
		if resp.Truncated {
			msg = cutOffMessage(resp, err)
		}
		return nil, []schema.Problem{{Path: "/", Message: msg}}
	}
	return value, j.compiled.Validate(value)
}

// cutOffMessage says that an answer stopped at the model's output limit,
// so its JSON is unfinished, and what to do about it.
func cutOffMessage(resp provider.Response, err error) string {
	after := ""
	if n := resp.Usage.CompletionTokens; n > 0 {
		after = fmt.Sprintf(" after %d tokens", n)
	}
	fix := "raise the model server's output limit (max_tokens)"
	if resp.NumCtx > 0 {
		// Ollama: the prompt and the answer share the num_ctx window.
		fix = fmt.Sprintf("raise DOCENT_MAX_CONTEXT (the prompt and the answer share the model's %d-token window)", resp.NumCtx)
	}
	return fmt.Sprintf("the answer was cut off at the model's output limit%s, so its JSON is unfinished (%v): %s, or extract from fewer pages or with a smaller schema",
		after, err, fix)
}

// parseAnswer finds the JSON in a model's answer: the whole text when it is
// JSON, else the outermost {...} in it (which drops ```json fences and any
// words around the object). It returns the value compacted.
func parseAnswer(raw string) (json.RawMessage, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("the answer is empty")
	}
	if !json.Valid([]byte(s)) {
		start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
		if start < 0 || end < start {
			return nil, jsonError(s)
		}
		s = s[start : end+1]
		if !json.Valid([]byte(s)) {
			return nil, jsonError(s)
		}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(s)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// jsonError is why s is not JSON, as encoding/json says it.
func jsonError(s string) error {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return err
	}
	return errors.New("not a JSON value")
}

// repairMessage asks the model to correct an answer with these problems.
func repairMessage(problems []schema.Problem) string {
	var b strings.Builder
	b.WriteString("Your answer does not match the schema:\n")
	for _, p := range problems {
		fmt.Fprintf(&b, "- %s: %s\n", p.Path, p.Message)
	}
	b.WriteString("Answer again with the corrected JSON object only.")
	return b.String()
}

// pagesText renders a document's pages for the model, each after a
// "--- page N ---" marker. ok is false when no page has any text.
func pagesText(pages []string) (text string, ok bool) {
	var b strings.Builder
	for i, p := range pages {
		p = strings.TrimSpace(p)
		if p != "" {
			ok = true
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "--- page %d ---\n%s", i+1, p)
	}
	return b.String(), ok
}

// compileStored compiles a stored schema revision. The store keeps any JSON
// object, so a revision that does not compile is reported, not assumed away.
func compileStored(srev storage.SchemaRevision) (schema.ResponseFormat, *schema.Compiled, error) {
	var rf schema.ResponseFormat
	if err := json.Unmarshal(srev.ResponseFormat, &rf); err != nil {
		return rf, nil, fault.Errorf(fault.Invalid, "schema %s version %d is not a response_format: %v; fix it with update_schema", srev.Name, srev.Version, err)
	}
	compiled, err := schema.Compile(rf)
	if err != nil {
		detail := err.Error()
		if ps := schema.Errors(err); len(ps) > 0 {
			detail = problemList(ps)
		}
		return rf, nil, fault.Errorf(fault.Invalid, "schema %s version %d cannot be used: %s; fix it with update_schema", srev.Name, srev.Version, detail)
	}
	return rf, compiled, nil
}

// ValidateValue validates data against a stored schema revision: the
// validate_against_schema tool, and the check after a field is edited. Data
// that is not JSON is invalid with one problem at "/"; err is only for a
// revision that does not exist or does not compile.
func ValidateValue(ctx context.Context, db *storage.DB, schemaRevID string, data json.RawMessage) (valid bool, problems []schema.Problem, err error) {
	srev, err := db.GetSchemaRevision(ctx, schemaRevID)
	if err != nil {
		return false, nil, err
	}
	_, compiled, err := compileStored(srev)
	if err != nil {
		return false, nil, err
	}
	if !json.Valid(data) {
		return false, []schema.Problem{{Path: "/", Message: "not JSON: " + jsonError(string(data)).Error()}}, nil
	}
	problems = compiled.Validate(data)
	return len(problems) == 0, problems, nil
}
