package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// AutoCreateMessage is the fixed first message of a headless auto-create
// run.
const AutoCreateMessage = "Analyze this document. Create a schema that captures the key, repeatable fields for documents like this — focus on fields that would be uniform across similar documents, not every detail. Then create a prompt for extracting those fields, and run the extraction. If the extraction is invalid, or names values that are not found in the document, check them against the text and refine the prompt or the schema."

// Defaults of an AutoCreator.
const (
	// DefaultAutoCreateTimeout bounds one document's run, from its claim to
	// its proposal. CPU-only local models need more.
	DefaultAutoCreateTimeout = 120 * time.Second
	// autoCreateStaleGrace is added to the timeout to tell a run that
	// stopped (a killed process) from one still working: a run never holds
	// a document longer than its timeout plus the time to record its end.
	autoCreateStaleGrace = time.Minute
	// autoCreateMaxRounds leaves room for validate, create schema, create
	// prompt, extract, two refinements and the answer.
	autoCreateMaxRounds = 16
)

// AutoCreateCallLimits are the tool limits of a headless run, from the
// tools' HeadlessLimit: one schema and one prompt, refined at most twice
// (so at most three extractions).
func AutoCreateCallLimits() map[string]int {
	limits := map[string]int{}
	for _, t := range registry() {
		if t.HeadlessLimit > 0 {
			limits[t.Name] = t.HeadlessLimit
		}
	}
	return limits
}

// AutoCreator runs the headless agent on documents: it proposes a schema, a
// prompt and an extraction for each, in a thread of the document that the
// user can open and continue. Runs of different documents may go on side by
// side (in one process or several); each document is claimed in the store
// first, so one document never has two runs.
type AutoCreator struct {
	Agent *Agent
	// Timeout bounds one run (default DefaultAutoCreateTimeout).
	Timeout time.Duration
	// StaleAfter is how old a running claim must be before another run may
	// take the document over (default Timeout + 1 minute).
	StaleAfter time.Duration
}

// AutoCreateOptions shape one run.
type AutoCreateOptions struct {
	// Model is the provider-prefixed model; "" uses the agent's default.
	Model string
	// SchemaID, when set (an id or a name), reuses that schema: no schema
	// is invented, the run only extracts, with PromptID or else the
	// schema's auto-create prompt (made on first use).
	SchemaID string
	// PromptID (with SchemaID) is the prompt to extract with; it must link
	// that schema.
	PromptID string
	// Sink, when set, receives the run's events (docs/protocol.md).
	Sink Sink
}

// AutoCreateResult is how one run ended.
type AutoCreateResult struct {
	DocumentID   string `json:"document_id"`
	DocumentName string `json:"document_name"`
	// Status is the document's auto-create status after the run: proposed,
	// failed, pending (interrupted, to run again), or, when the run did
	// not start (Skipped), the status that kept it from starting.
	Status string `json:"status"`
	// Skipped is set when the document was not claimed: already proposed,
	// accepted, or running elsewhere. Error says why.
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// ExtractionOnly is set for a run that reused a schema.
	ExtractionOnly bool `json:"extraction_only,omitempty"`
	// Paused is set when the run stopped at a spending limit (Error says
	// which): the document is pending again, to run when the limit
	// allows.
	Paused bool `json:"paused,omitempty"`
	// Refused lists the calls the run made outside its scope (changes to
	// what it did not create), which were not run; the proposal and a
	// failed run keep them, an interrupted run (back in the queue) has
	// none.
	Refused      []storage.Refusal   `json:"refused,omitempty"`
	ThreadID     string              `json:"thread_id,omitempty"`
	SchemaID     string              `json:"schema_id,omitempty"`
	SchemaRevID  string              `json:"schema_revid,omitempty"`
	PromptID     string              `json:"prompt_id,omitempty"`
	PromptRevID  string              `json:"prompt_revid,omitempty"`
	ExtractionID string              `json:"extraction_id,omitempty"`
	Extraction   *storage.Extraction `json:"-"`
	// Ungrounded counts the proposed extraction's values that were not
	// found in the document, for a person to check first.
	Ungrounded int `json:"ungrounded"`
	// Usage sums the tokens of the agent's rounds and of the run's
	// extractions.
	Usage    Usage         `json:"usage"`
	Duration time.Duration `json:"-"`
}

func (c *AutoCreator) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultAutoCreateTimeout
}

// StaleAge is how old a running claim must be for this creator to take it
// over.
func (c *AutoCreator) StaleAge() time.Duration {
	if c.StaleAfter > 0 {
		return c.StaleAfter
	}
	return c.timeout() + autoCreateStaleGrace
}

// Run claims a document and runs auto-create on it to the end. The returned
// error says why a run that was claimed did not reach a proposal, or why the
// document could not be claimed (a conflict: Skipped is set then); the
// result says how it ended in either case.
func (c *AutoCreator) Run(ctx context.Context, documentID string, opts AutoCreateOptions) (AutoCreateResult, error) {
	claim, err := c.Agent.DB.ClaimAutoCreate(ctx, documentID, c.StaleAge())
	if err != nil {
		res := AutoCreateResult{DocumentID: documentID, Error: fault.ErrorMessage(err)}
		if d, gerr := c.Agent.DB.GetDocument(ctx, documentID); gerr == nil {
			res.DocumentName, res.Status = d.Name, d.AutoCreateStatus
			res.Skipped = errors.Is(err, storage.ErrConflict)
		}
		return res, err
	}
	return c.run(ctx, claim, opts)
}

// run takes a claimed document to a proposal, or to failed (or back to
// pending when ctx was cancelled) with what the run made removed.
func (c *AutoCreator) run(ctx context.Context, claim storage.AutoCreateClaim, opts AutoCreateOptions) (AutoCreateResult, error) {
	start := time.Now()
	db := c.Agent.DB
	res := AutoCreateResult{DocumentID: claim.DocumentID, DocumentName: claim.Document.Name, ExtractionOnly: opts.SchemaID != ""}
	runCtx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	runCtx = storage.WithUsageScope(runCtx, storage.UsageScope{Edge: storage.EdgeAutoCreate, DocumentID: claim.DocumentID})
	// The end of a run is recorded even when ctx is cancelled (Ctrl-C):
	// that is what keeps the document claimable by the next run.
	keep := context.WithoutCancel(ctx)
	rec := &autoCreateRecorder{ctx: keep, db: db, logger: c.Agent.logger(), claim: claim, next: opts.Sink}

	var links storage.AutoCreateLinks
	var err error
	if opts.SchemaID == "" {
		// One schema per kind: a document of a kind in use only extracts
		// with it. The choice, and a run that makes a new kind, hold the
		// store's kind gate until the proposal records the kind.
		gate := kindGate(db)
		gate.Lock()
		var kind *storage.Kind
		if kind, err = c.chooseKind(runCtx, claim.Document, opts, &res); kind != nil {
			gate.Unlock()
			// Its prompt is the one a person chose for the kind; none
			// (a kind nobody has accepted yet) extracts with the
			// schema's auto-create prompt, never with the prompt of
			// another document's proposal.
			opts.SchemaID, opts.PromptID = kind.Schema.SchemaID, ""
			if p, perr := db.KindPrompt(runCtx, kind.Schema.SchemaID); perr == nil {
				opts.PromptID = p.PromptID
			}
			res.ExtractionOnly = true
		} else {
			defer gate.Unlock()
		}
	}
	switch {
	case err != nil:
	case opts.SchemaID != "":
		links, err = c.extractOnly(runCtx, claim, opts, rec, &res)
	default:
		links, err = c.converse(runCtx, claim, opts, rec, &res)
	}
	res.Usage.PromptTokens += rec.extractionTokens(keep, true)
	res.Usage.CompletionTokens += rec.extractionTokens(keep, false)
	if err == nil {
		var d storage.Document
		if d, err = db.ProposeAutoCreate(keep, claim, links, res.Refused); err == nil {
			res.Status = d.AutoCreateStatus
			res.ThreadID, res.SchemaID, res.PromptID, res.ExtractionID = links.ThreadID, links.SchemaID, links.PromptID, links.ExtractionID
			res.Duration = time.Since(start)
			return res, nil
		}
	}
	res.Duration = time.Since(start)
	res.ThreadID, res.SchemaID, res.SchemaRevID, res.PromptID, res.PromptRevID, res.ExtractionID, res.Extraction = "", "", "", "", "", "", nil
	limited := errors.Is(err, fault.SpendingLimit)
	if ctx.Err() != nil || limited {
		// Interrupted, or paused at a spending limit: not the document's
		// fault. It goes back to pending and the next batch (or this one,
		// once the limit allows) runs it again; what this attempt tried
		// outside its scope goes with it (the store keeps no refusal of a
		// requeued run either): the run that counts is the next one.
		res.Error, res.Refused = "interrupted", nil
		interrupted := fmt.Errorf("auto-create of %s interrupted: %w", claim.Document.Name, ctx.Err())
		if limited && ctx.Err() == nil {
			res.Error, res.Paused = fault.ErrorMessage(err), true
			interrupted = fmt.Errorf("auto-create of %s paused: %w", claim.Document.Name, err)
		}
		d, rerr := db.RequeueAutoCreate(keep, claim)
		if rerr != nil {
			// It stays running until its claim is stale; say so.
			res.Status = storage.AutoCreateRunning
			return res, errors.Join(interrupted, fmt.Errorf("put %s back in the queue: %w", claim.Document.Name, rerr))
		}
		res.Status = d.AutoCreateStatus
		return res, interrupted
	}
	if errors.Is(err, context.DeadlineExceeded) || runCtx.Err() == context.DeadlineExceeded {
		err = fault.Errorf(fault.Timeout, "timed out after %s (the time limit; raise it with --timeout)", c.timeout())
	}
	err = fault.Report(ctx, c.Agent.logger(), "auto-create of "+claim.Document.Name, err)
	res.Error = fault.ErrorMessage(err)
	if len(res.Refused) > 0 {
		// The run may have failed because a document steered it: say so
		// where people look for why.
		c.Agent.logger().WarnContext(ctx, "auto-create: the failed run tried calls outside its scope, which were refused; they are kept with the document",
			"document", claim.DocumentID, "name", claim.Document.Name, "refused", len(res.Refused), "first_tool", res.Refused[0].Tool, "first_reason", res.Refused[0].Reason)
	}
	if d, ferr := db.FailAutoCreate(keep, claim, res.Error, res.Refused); ferr == nil {
		res.Status = d.AutoCreateStatus
	} else {
		res.Status = storage.AutoCreateRunning
		return res, errors.Join(err, ferr)
	}
	return res, err
}

// chooseKind returns the kind in use the document is of, or nil when it
// is of a new kind (or the choice failed for a reason that is not the
// run's end: the run then makes a new kind, as it did before kinds).
func (c *AutoCreator) chooseKind(ctx context.Context, doc storage.Document, opts AutoCreateOptions, res *AutoCreateResult) (*storage.Kind, error) {
	kinds, err := c.Agent.DB.Kinds(ctx)
	if err != nil {
		return nil, err
	}
	kind, usage, err := c.Agent.chooseKind(ctx, doc, cmp.Or(opts.Model, c.Agent.DefaultModel), kinds)
	res.Usage.PromptTokens += usage.PromptTokens
	res.Usage.CompletionTokens += usage.CompletionTokens
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, fault.SpendingLimit) {
			return nil, err
		}
		c.Agent.logger().WarnContext(ctx, "auto-create: could not choose among the kinds in use; making a new one", "document", doc.ID, "err", err)
		return nil, nil
	}
	return kind, nil
}

// runAgent is the agent of one run: the creator's, with the run's model as
// the default of its extractions too (a prompt's own model still wins).
func (c *AutoCreator) runAgent(opts AutoCreateOptions) *Agent {
	a := *c.Agent
	if a.Extractor != nil {
		x := *a.Extractor
		x.DefaultModel = cmp.Or(opts.Model, x.DefaultModel, a.DefaultModel)
		a.Extractor = &x
	}
	return &a
}

// converse runs the agent's turn with the fixed message, unattended within
// the run's Scope and AutoCreateCallLimits, and reads the proposal from the
// working state the turn ends with.
func (c *AutoCreator) converse(ctx context.Context, claim storage.AutoCreateClaim, opts AutoCreateOptions, rec *autoCreateRecorder, res *AutoCreateResult) (storage.AutoCreateLinks, error) {
	a := c.runAgent(opts)
	a.MaxToolRounds = max(a.MaxToolRounds, autoCreateMaxRounds)
	scope := NewScope(claim.DocumentID)
	turn, err := a.Chat(ctx, ChatRequest{
		DocumentID: claim.DocumentID, Message: AutoCreateMessage, Model: opts.Model,
		Scope: scope, CallLimits: AutoCreateCallLimits(),
	}, rec)
	res.Usage.PromptTokens += turn.Usage.PromptTokens
	res.Usage.CompletionTokens += turn.Usage.CompletionTokens
	res.Refused = scope.Refused()
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if turn.Paused() {
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Conflict, "the agent's turn paused for approval, which a headless run cannot give")
	}
	ws := turn.WorkingState
	if ws.Extraction == nil {
		why := "the agent ended without running an extraction"
		if t := strings.TrimSpace(turn.Text); t != "" {
			first, _, _ := strings.Cut(t, "\n")
			why += ": " + textfmt.Shorten(first, 160)
		}
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "%s", why)
	}
	return c.proposal(ctx, turn.ThreadID, ws.Extraction.ID, res)
}

// proposal checks the run's last extraction and names the schema and prompt
// it was made with.
func (c *AutoCreator) proposal(ctx context.Context, threadID, extractionID string, res *AutoCreateResult) (storage.AutoCreateLinks, error) {
	db := c.Agent.DB
	x, err := db.GetExtraction(ctx, extractionID)
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if len(x.Value) == 0 || string(x.Value) == "null" {
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "the last extraction gave no JSON value")
	}
	if x.PromptRevID == "" {
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "the last extraction has no prompt")
	}
	p, err := db.GetPromptRevision(ctx, x.PromptRevID)
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if p.SchemaID == "" {
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "prompt %q of the last extraction links no schema", p.Name)
	}
	res.SchemaRevID, res.PromptRevID, res.Extraction = p.SchemaRevID, p.PromptRevID, &x
	_, counts := evidenceCounts(x)
	res.Ungrounded = counts.Ungrounded
	return storage.AutoCreateLinks{ThreadID: threadID, SchemaID: p.SchemaID, PromptID: p.PromptID, ExtractionID: x.ID}, nil
}

// extractOnly is the run with a reused schema. It does not ask the model to
// plan anything: it resolves the prompt (given, or the schema's
// auto-create prompt) and runs a turn whose rounds are scripted: a
// run_extraction call with that prompt (the one model call, two when the
// answer needs repair), then a closing line. The turn writes the thread,
// the working state and the events as any turn does, so the conversation
// can go on from there in chat.
func (c *AutoCreator) extractOnly(ctx context.Context, claim storage.AutoCreateClaim, opts AutoCreateOptions, rec *autoCreateRecorder, res *AutoCreateResult) (storage.AutoCreateLinks, error) {
	a := c.runAgent(opts)
	if a.Extractor == nil {
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "extraction is not available: no model providers are configured")
	}
	if opts.Model != "" {
		x := *a.Extractor
		x.Model = opts.Model // the model asked for wins over the prompt's
		a.Extractor = &x
	}
	srev, err := a.DB.FindSchema(ctx, strings.TrimSpace(opts.SchemaID))
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	// The prompt comes before the thread, the first thing the run makes:
	// the schema's auto-create prompt (Docent's own words, made here when
	// the kind has no prompt chosen yet) belongs to the kind, not to this
	// run, so rejecting this proposal does not take down the proposals of
	// the other documents of the kind that use it.
	prompt, err := c.schemaPrompt(ctx, srev, opts.PromptID)
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	th, err := a.DB.CreateThread(ctx, claim.DocumentID, "Auto-create with schema "+srev.Name, cmp.Or(opts.Model, a.DefaultModel))
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if err := rec.record(storage.AutoCreateLinks{ThreadID: th.ID}); err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if err := rec.record(storage.AutoCreateLinks{SchemaID: srev.SchemaID, PromptID: prompt.PromptID}); err != nil {
		return storage.AutoCreateLinks{}, err
	}
	call := provider.ToolCall{ID: "call_auto_create_0", Name: "run_extraction", Arguments: mustJSON(map[string]string{"prompt_revid": prompt.PromptRevID})}
	script := func(round int, ws WorkingState) (provider.Response, bool) {
		if round == 0 {
			return provider.Response{ToolCalls: []provider.ToolCall{call}}, true
		}
		if ws.Extraction == nil {
			return provider.Response{Text: "The extraction did not run; its error is above."}, true
		}
		return provider.Response{Text: fmt.Sprintf("Extracted this document with the existing schema [%s](schema_rev:%s) and the prompt [%s](prompt_rev:%s); validation: %s.",
			srev.Name, prompt.SchemaRevID, prompt.Name, prompt.PromptRevID, ws.Extraction.ValidationStatus)}, true
	}
	scope := NewScope(claim.DocumentID)
	turn, err := a.Chat(ctx, ChatRequest{
		DocumentID: claim.DocumentID, ThreadID: th.ID, Model: opts.Model, Scope: scope, Script: script,
		Message: fmt.Sprintf("Auto-create with the schema %q: extract its fields from this document.", srev.Name),
	}, rec)
	res.Refused = scope.Refused()
	if err != nil {
		return storage.AutoCreateLinks{}, err
	}
	if turn.WorkingState.Extraction == nil {
		why := "the extraction did not run"
		for _, r := range turn.ExecutedRounds {
			for _, c := range r.ToolCalls {
				if c.Error != "" {
					why = c.Error
				}
			}
		}
		return storage.AutoCreateLinks{}, fault.Errorf(fault.Invalid, "%s", why)
	}
	return c.proposal(ctx, turn.ThreadID, turn.WorkingState.Extraction.ID, res)
}

// schemaPrompt returns the prompt a reused schema extracts with: the one
// given (which must link that schema), else the schema's auto-create prompt,
// found by its name or made now with a generic instruction.
func (c *AutoCreator) schemaPrompt(ctx context.Context, srev storage.SchemaRevision, promptID string) (storage.PromptRevision, error) {
	db := c.Agent.DB
	if promptID = strings.TrimSpace(promptID); promptID != "" {
		p, err := db.FindPrompt(ctx, promptID)
		if err != nil {
			return p, err
		}
		if p.SchemaID != srev.SchemaID {
			return p, fault.Errorf(fault.Invalid, "prompt %q does not extract with schema %q", p.Name, srev.Name)
		}
		return p, nil
	}
	for _, name := range []string{srev.Name + " (auto-create)", srev.Name + " (auto-create " + srev.SchemaID + ")"} {
		for attempt := 0; attempt < 2; attempt++ {
			p, err := db.FindPrompt(ctx, name)
			if err == nil {
				if p.SchemaID == srev.SchemaID {
					return p, nil
				}
				break // that name is taken by another schema's prompt
			}
			if !errors.Is(err, storage.ErrNotFound) {
				return p, err
			}
			p, err = db.CreatePrompt(ctx, storage.NewPrompt{
				Name:     name,
				Content:  "Extract the fields of the schema from this document. Copy values as they are written (dates as YYYY-MM-DD, amounts as numbers); use null for anything the document does not contain.",
				SchemaID: srev.SchemaID,
			})
			if err == nil || !errors.Is(err, storage.ErrConflict) {
				return p, err
			}
			// Another run made it at the same moment: read it again.
		}
	}
	return storage.PromptRevision{}, fault.Errorf(fault.Conflict, "no prompt name is free for schema %q", srev.Name)
}

// autoCreateRecorder is the sink of a run: it notes on the document what the
// run makes as the tool results come (so that a run killed half-way can be
// cleaned up by the next claim) and passes the events on.
type autoCreateRecorder struct {
	ctx    context.Context
	db     *storage.DB
	logger *slog.Logger
	claim  storage.AutoCreateClaim
	next   Sink

	mu          sync.Mutex
	extractions []string
}

func (r *autoCreateRecorder) Emit(e Event) error {
	var err error
	started, _ := e.Payload.(TurnStartedPayload)
	switch {
	case started.ThreadID != "":
		err = r.record(storage.AutoCreateLinks{ThreadID: started.ThreadID})
	case e.Outcome().Success:
		err = r.noteResult(e)
	}
	if err != nil {
		return err
	}
	if r.next != nil {
		return r.next.Emit(e)
	}
	return nil
}

func (r *autoCreateRecorder) record(l storage.AutoCreateLinks) error {
	err := r.db.RecordAutoCreate(r.ctx, r.claim, l)
	if err != nil && !errors.Is(err, storage.ErrConflict) {
		// Bookkeeping only: the run goes on, its end is recorded anyway.
		r.logger.WarnContext(r.ctx, "auto-create: record progress", "document", r.claim.DocumentID, "err", err)
		return nil
	}
	return err // a lost claim stops the run
}

// noteResult records what a successful call created: the references its
// result carries.
func (r *autoCreateRecorder) noteResult(e Event) error {
	var l storage.AutoCreateLinks
	for _, ref := range e.Created {
		switch ref.Kind {
		case KindSchema:
			l.SchemaID = ref.ID
		case KindPrompt:
			l.PromptID = ref.ID
		case KindExtraction:
			l.ExtractionID = ref.ID
			r.mu.Lock()
			r.extractions = append(r.extractions, ref.ID)
			r.mu.Unlock()
		}
	}
	if l == (storage.AutoCreateLinks{}) {
		return nil
	}
	return r.record(l)
}

// extractionTokens sums the prompt (or completion) tokens of the run's
// extractions.
func (r *autoCreateRecorder) extractionTokens(ctx context.Context, prompt bool) int {
	r.mu.Lock()
	ids := append([]string(nil), r.extractions...)
	r.mu.Unlock()
	n := 0
	for _, id := range ids {
		x, err := r.db.GetExtraction(ctx, id)
		if err != nil {
			continue // removed with a failed run
		}
		if prompt {
			n += x.PromptTokens
		} else {
			n += x.CompletionTokens
		}
	}
	return n
}
