package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// autoCreateOptions are the flags of `docent auto-create`.
type autoCreateOptions struct {
	// Paths are imported first and their documents auto-created; All
	// takes every document not yet proposed or accepted instead.
	Paths []string
	All   bool
	// Tags tag the imported documents.
	Tags []string
	// Concurrency is how many run at once; 0 is the model's own
	// (agent.AutoCreateConcurrency).
	Concurrency int
	// Timeout bounds one document's run; StaleAfter is when a run marked
	// running counts as abandoned and is taken over (0: the agent's
	// default).
	Timeout, StaleAfter time.Duration
	// Schema is the schema every document uses; Shared has the first
	// document's proposal give its schema and prompt to the rest.
	Schema string
	Shared bool
	JSON   bool
}

func parseAutoCreate(args []string) (autoCreateOptions, error) {
	var o autoCreateOptions
	fs := flag.NewFlagSet("auto-create", flag.ContinueOnError)
	fs.IntVar(&o.Concurrency, "concurrency", 0, "")
	fs.DurationVar(&o.Timeout, "timeout", agent.DefaultAutoCreateTimeout, "")
	fs.DurationVar(&o.StaleAfter, "stale-after", 0, "")
	fs.StringVar(&o.Schema, "schema", "", "")
	fs.BoolVar(&o.Shared, "shared", false, "")
	fs.BoolVar(&o.All, "all", false, "")
	fs.BoolVar(&o.JSON, "json", false, "")
	fs.Var((*stringList)(&o.Tags), "tag", "")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	o.Paths = paths
	switch {
	case o.All == (len(paths) > 0):
		return o, usagef("auto-create needs files or folders, or --all\n%s", usageLine("auto-create"))
	case o.Concurrency < 0:
		return o, usagef("--concurrency must be at least 1")
	case o.Timeout <= 0:
		return o, usagef("--timeout must be positive, e.g. 5m")
	case o.Shared && o.Schema != "":
		return o, usagef("--shared and --schema exclude each other: --schema already names the schema every document uses")
	}
	return o, nil
}

// runAutoCreate is `docent auto-create`: the headless agent over a batch of
// documents, a few at a time.
//
// With --json, stdout is NDJSON: the agent events of every run
// (docs/protocol.md, without the fine-grained *_chunk events, each with a
// document_id added), one "auto_create_result" line per document as it
// ends, and one "auto_create_summary" line at the end.
func runAutoCreate(ctx context.Context, env *Env, o autoCreateOptions) error {
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	mark, err := markUsage(ctx, db)
	if err != nil {
		return err
	}
	// The agent knows the model in effect: --model, DOCENT_MODEL, or the
	// default saved on the Settings page.
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	if a.DefaultModel == "" {
		return usagef("auto-create needs a model: pass --model (e.g. ollama/qwen3:8b), set DOCENT_MODEL, or choose a default model in the app's Settings")
	}
	b := &autoCreateBatch{env: env, db: db, json: o.JSON, shared: o.Shared, model: a.DefaultModel, modelFlag: env.ModelFlag,
		creator:     &agent.AutoCreator{Agent: a, Timeout: o.Timeout, StaleAfter: o.StaleAfter},
		concurrency: cmp.Or(o.Concurrency, agent.AutoCreateConcurrency(a.DefaultModel))}
	if o.Schema != "" {
		s, err := db.FindSchema(ctx, o.Schema)
		if err != nil {
			return err
		}
		b.schemaID = s.SchemaID
	}

	docs, importFailed, err := autoCreateDocuments(ctx, env, db, o)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		fmt.Fprintln(env.IO.Err, "nothing to auto-create")
		if importFailed {
			return errPartial
		}
		return nil
	}

	if err := b.estimate(ctx, a, docs); err != nil {
		return err
	}
	results := b.run(ctx, docs)
	ids := map[string]bool{}
	for _, d := range docs {
		ids[d.ID] = true
	}
	// The batch's calls are summed even when it was interrupted: what
	// they spent is spent.
	if b.usage, err = mark.sum(context.WithoutCancel(ctx), db, ids); err != nil {
		return err
	}
	if err := b.report(ctx, results); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "auto-create interrupted: finished documents are kept; run the same command again to resume: %w", err)
	}
	if importFailed || slices.ContainsFunc(results, func(r batchResult) bool { return r.Status == storage.AutoCreateFailed }) {
		return errPartial
	}
	return nil
}

// autoCreateDocuments are the batch's documents, each once: with --all
// the candidates, else the documents of the paths, imported (scans read
// with OCR) first; importFailed says some path did not import.
func autoCreateDocuments(ctx context.Context, env *Env, db *storage.DB, o autoCreateOptions) (docs []storage.Document, importFailed bool, err error) {
	if o.All {
		docs, err := db.AutoCreateCandidates(ctx)
		return uniqueDocuments(docs), false, err
	}
	pipe := env.pipeline(ctx, db)
	imp, err := importPaths(ctx, env, db, pipe, o.Paths, o.Tags, pipeline.Options{})
	if err != nil {
		return nil, false, err
	}
	// Scans and photos are read first, as `docent import` does, so that
	// they are auto-created with the rest; this batch then runs the last
	// stage itself.
	if err := imp.finish(ctx, env, db, pipe, pipeline.FinishOptions{OCR: &ocr.Options{Lang: ocr.SettingLang(ctx, db), Logger: env.Logger}}); err != nil {
		return nil, false, err
	}
	imp.printSummary(env)
	if err := ctx.Err(); err != nil {
		return nil, false, fault.Errorf(fault.Canceled, "interrupted while importing; what finished is kept: %w", err)
	}
	for _, d := range imp.documents {
		if d.Status == storage.StatusReady {
			docs = append(docs, d)
		} else {
			fmt.Fprintf(env.IO.Err, "%s: not auto-created: its status is %s\n", textfmt.Visible(d.Name), d.Status)
		}
	}
	return uniqueDocuments(docs), len(imp.report.Errors) > 0, nil
}

// estimate says what the batch is expected to spend before it starts: on
// stderr on a hosted model (a local one costs nothing), and with --json as
// the first line, {"type": "auto_create_estimate", ...}.
func (b *autoCreateBatch) estimate(ctx context.Context, a *agent.Agent, docs []storage.Document) error {
	var ids []string
	for _, d := range docs {
		if d.AutoCreateStatus != storage.AutoCreateProposed && d.AutoCreateStatus != storage.AutoCreateAccepted {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	est, err := a.EstimateAutoCreate(ctx, ids, cmp.Or(b.modelFlag, b.model))
	if err != nil {
		// The estimate only informs: a model the batch cannot use is
		// named by each document's run, as without it.
		b.env.Logger.Debug("auto-create: no estimate", "err", err)
		return nil
	}
	if b.json {
		if err := b.writeLine(struct {
			Type string `json:"type"`
			agent.AutoCreateEstimate
		}{"auto_create_estimate", est}); err != nil {
			return err
		}
	}
	providerName, model, _ := strings.Cut(est.Model, "/")
	if providerName == storage.ProviderLocal {
		return nil
	}
	cost := "price unknown"
	if est.CostUSD != nil {
		cost = "about " + storage.FormatUsageAmount(*est.CostUSD, storage.UnitUSD)
	}
	fmt.Fprintf(b.env.IO.Err, "estimated: %s, about %s tokens, %s (%s)\n", textfmt.Count(est.Documents, "document"),
		textfmt.Thousands(est.InputTokens+est.OutputTokens), cost, model)
	return nil
}

func uniqueDocuments(in []storage.Document) []storage.Document {
	seen := map[string]bool{}
	var out []storage.Document
	for _, d := range in {
		if !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out
}

// autoCreateBatch runs auto-create over documents, through the scheduler
// the server's queue uses too (agent.AutoCreateScheduler), and reports on
// them.
type autoCreateBatch struct {
	env         *Env
	db          *storage.DB
	creator     *agent.AutoCreator
	concurrency int
	// model is the default model (--model, DOCENT_MODEL or the saved
	// default); modelFlag is --model alone, which wins over the model a
	// document was queued with (`docent import --auto-create --model M`),
	// which wins over the default.
	model, modelFlag string
	// usage sums the model calls the batch made.
	usage batchUsage
	json  bool
	// schemaID is --schema; with shared, it is set from the first document
	// that reaches a proposal, with promptID.
	schemaID, promptID string
	shared             bool

	outMu sync.Mutex // stdout lines (NDJSON) from concurrent runs

	mu              sync.Mutex
	done, running   int
	failed, skipped int
	spent           time.Duration // summed durations of finished runs
	waiting         bool          // paused at a spending limit, and said so
	bar             *progress
}

// batchResult is one document's line in the summary.
type batchResult struct {
	agent.AutoCreateResult
	// NotStarted is set for documents an interruption kept from starting.
	NotStarted   bool     `json:"not_started,omitempty"`
	SchemaName   string   `json:"schema_name,omitempty"`
	FieldsFilled int      `json:"fields_filled"`
	FieldsTotal  int      `json:"fields_total"`
	EmptyFields  []string `json:"empty_fields,omitempty"`
	DurationMS   int64    `json:"duration_ms"`
	Tokens       int      `json:"tokens"`
}

// run runs every document and returns their results in the given order.
// Proposed and accepted documents are skipped; with --shared the first
// document to reach a proposal (or one proposed before) gives its schema
// and prompt to the others.
func (b *autoCreateBatch) run(ctx context.Context, docs []storage.Document) []batchResult {
	results := make([]batchResult, len(docs))
	b.bar = newProgress(b.env.IO, len(docs), "auto-creating")
	defer b.bar.finish()

	var todo []int
	for i, d := range docs {
		if d.AutoCreateStatus == storage.AutoCreateProposed || d.AutoCreateStatus == storage.AutoCreateAccepted {
			results[i] = batchResult{AutoCreateResult: agent.AutoCreateResult{DocumentID: d.ID, DocumentName: d.Name,
				Status: d.AutoCreateStatus, Skipped: true, ThreadID: d.AutoCreateThreadID, SchemaID: d.AutoCreateSchemaID,
				PromptID: d.AutoCreatePromptID, ExtractionID: d.AutoCreateExtractionID}}
			if b.shared && b.schemaID == "" && d.AutoCreateSchemaID != "" && d.AutoCreatePromptID != "" {
				b.schemaID, b.promptID = d.AutoCreateSchemaID, d.AutoCreatePromptID
			}
			b.finished(results[i])
			continue
		}
		todo = append(todo, i)
	}
	index := make(map[string]int, len(todo)) // docs are unique
	for _, i := range todo {
		results[i] = batchResult{NotStarted: true, AutoCreateResult: agent.AutoCreateResult{DocumentID: docs[i].ID, DocumentName: docs[i].Name, Status: docs[i].AutoCreateStatus}}
		index[docs[i].ID] = i
	}
	sched := &agent.AutoCreateScheduler{
		Logger:      b.env.Logger,
		Creator:     func() *agent.AutoCreator { return b.creator },
		Concurrency: b.concurrency,
		Options:     b.starting,
		Done: func(ctx context.Context, d storage.Document, res agent.AutoCreateResult, _ error) {
			results[index[d.ID]] = b.ended(ctx, d, res)
		},
		DB:     b.db,
		Paused: b.paused,
	}
	// --shared: one at a time until a document gives the batch its schema.
	for b.shared && b.schemaID == "" && len(todo) > 0 && ctx.Err() == nil {
		i := todo[0]
		todo = todo[1:]
		sched.RunAll(ctx, docs[i:i+1])
		if results[i].Status == storage.AutoCreateProposed {
			b.schemaID, b.promptID = results[i].SchemaID, results[i].PromptID
		}
	}
	rest := make([]storage.Document, len(todo))
	for k, i := range todo {
		rest[k] = docs[i]
	}
	// On Ctrl-C what runs ends (and is requeued), nothing new starts: the
	// documents not started keep their "not started" result.
	sched.RunAll(ctx, rest)
	return results
}

// starting counts a document's run as it starts and gives its options:
// the model (--model, else the model it was queued with, else the
// default), the batch's schema and prompt, and with --json its events.
func (b *autoCreateBatch) starting(d storage.Document) agent.AutoCreateOptions {
	b.mu.Lock()
	b.running++
	b.mu.Unlock()
	opts := agent.AutoCreateOptions{Model: cmp.Or(b.modelFlag, d.AutoCreateModel, b.model), SchemaID: b.schemaID, PromptID: b.promptID}
	if b.json {
		opts.Sink = agent.SinkFunc(func(e agent.Event) error { return b.writeEvent(d.ID, e) })
	}
	return opts
}

// paused says, once until a run ends again, that the batch waits at a
// spending limit.
func (b *autoCreateBatch) paused(_ context.Context, _ storage.Document, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting {
		return
	}
	b.waiting = true
	fmt.Fprintf(b.env.IO.Err, "auto-create paused: %s\nThe documents left wait and go on once the limit allows (Ctrl-C stops; they stay queued).\n", fault.ErrorMessage(err))
}

// ended accounts for a document's run as it ends.
func (b *autoCreateBatch) ended(ctx context.Context, d storage.Document, res agent.AutoCreateResult) batchResult {
	b.mu.Lock()
	b.waiting = false
	b.mu.Unlock()
	if res.Skipped && res.Status == storage.AutoCreateRunning {
		res.Error = b.stillRunning(ctx, d)
	}
	r := b.describe(ctx, res)
	b.mu.Lock()
	b.running--
	b.mu.Unlock()
	b.finished(r)
	return r
}

// stillRunning says why a document marked running was skipped and how to
// take it over: another process may be running it, or one that crashed or
// was killed left it so, and only its age tells them apart.
func (b *autoCreateBatch) stillRunning(ctx context.Context, d storage.Document) string {
	if cur, err := b.db.GetDocument(context.WithoutCancel(ctx), d.ID); err == nil {
		d = cur
	}
	age := b.creator.StaleAge()
	msg := "still marked running"
	takeOver := fmt.Sprintf("taken over after %s", age)
	if since := d.AutoCreateUpdatedAt; since != nil {
		msg += " since " + clockTime(*since)
		takeOver += " (at " + clockTime(since.Add(age)) + ")"
	}
	return msg + " (by another auto-create, or one that crashed or was killed); " + takeOver +
		", or at once with --stale-after 1s if no other auto-create is running"
}

// clockTime is a local time to the second, for times minutes apart.
func clockTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

// describe adds what the summary shows: schema name, fields filled, time,
// tokens.
func (b *autoCreateBatch) describe(ctx context.Context, res agent.AutoCreateResult) batchResult {
	r := batchResult{AutoCreateResult: res, DurationMS: res.Duration.Milliseconds(),
		Tokens: res.Usage.PromptTokens + res.Usage.CompletionTokens}
	if res.SchemaID == "" || res.ExtractionID == "" {
		return r
	}
	ctx = context.WithoutCancel(ctx)
	s, err := b.db.GetSchema(ctx, res.SchemaID)
	if err != nil {
		return r
	}
	r.SchemaName = s.Name
	x, err := b.db.GetExtraction(ctx, res.ExtractionID)
	if err != nil {
		return r
	}
	if res.SchemaRevID != "" {
		if rev, err := b.db.GetSchemaRevision(ctx, res.SchemaRevID); err == nil {
			s = rev
		}
	}
	filled, fields := export.Filled(s.ResponseFormat, x.Value)
	r.FieldsFilled, r.FieldsTotal = len(filled), len(fields)
	have := map[string]bool{}
	for _, f := range filled {
		have[f] = true
	}
	for _, f := range fields {
		if !have[f] {
			r.EmptyFields = append(r.EmptyFields, f)
		}
	}
	return r
}

// finished counts a finished document, prints its line (and its NDJSON
// result) and redraws the progress.
func (b *autoCreateBatch) finished(r batchResult) {
	b.mu.Lock()
	b.done++
	switch {
	case r.Skipped:
		b.skipped++
	case r.Status == storage.AutoCreateFailed:
		b.failed++
	}
	if !r.Skipped {
		b.spent += r.Duration
	}
	done, running, failed := b.done, b.running, b.failed
	eta := ""
	if ran := done - b.skipped; ran > 0 && b.bar.total > done {
		per := b.spent / time.Duration(ran)
		left := per * time.Duration(b.bar.total-done) / time.Duration(max(b.concurrency, 1))
		eta = ", about " + left.Round(time.Second).String() + " left"
	}
	line := fmt.Sprintf("%s: %s — %d running, %d failed%s", r.DocumentName, resultWord(r), running, failed, eta)
	b.bar.step(done, line)
	b.mu.Unlock()
	if b.json {
		_ = b.writeLine(struct {
			Type string `json:"type"`
			batchResult
		}{"auto_create_result", r})
	}
}

// shortDuration rounds a run's time for people: milliseconds under a
// second, tenths above.
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func resultWord(r batchResult) string {
	switch {
	case r.Skipped && r.Error != "":
		return "skipped: " + r.Error
	case r.Skipped:
		return "skipped, already " + r.Status
	case r.Status == storage.AutoCreateFailed && len(r.Refused) > 0:
		return fmt.Sprintf("failed: %s; REVIEW: %d calls outside the run's scope were refused (first: %s: %s)",
			r.Error, len(r.Refused), r.Refused[0].Tool, r.Refused[0].Reason)
	case r.Status == storage.AutoCreateFailed:
		return "failed: " + r.Error
	case r.Status == storage.AutoCreateProposed && len(r.Refused) > 0:
		return fmt.Sprintf("proposed (%s, %d/%d fields) in %s; REVIEW: %d calls outside the run's scope were refused (first: %s: %s)",
			r.SchemaName, r.FieldsFilled, r.FieldsTotal, shortDuration(r.Duration), len(r.Refused), r.Refused[0].Tool, r.Refused[0].Reason)
	case r.Status == storage.AutoCreateProposed && r.Ungrounded > 0:
		return fmt.Sprintf("proposed (%s, %d/%d fields, %d not found in the document) in %s",
			r.SchemaName, r.FieldsFilled, r.FieldsTotal, r.Ungrounded, shortDuration(r.Duration))
	case r.Status == storage.AutoCreateProposed:
		return fmt.Sprintf("proposed (%s, %d/%d fields) in %s", r.SchemaName, r.FieldsFilled, r.FieldsTotal, shortDuration(r.Duration))
	case r.Error != "":
		return r.Status + ": " + r.Error
	}
	return r.Status
}

// writeEvent writes one agent event as an NDJSON line with the document's
// id; the *_chunk events are left out (their *_done events carry the whole
// text).
func (b *autoCreateBatch) writeEvent(docID string, e agent.Event) error {
	if e.Type == agent.EventThinkingChunk || e.Type == agent.EventTextChunk {
		return nil
	}
	raw, err := json.Marshal(e)
	if err != nil || len(raw) < 2 || raw[0] != '{' {
		return err
	}
	id, _ := json.Marshal(docID)
	var line bytes.Buffer
	line.WriteString(`{"document_id":`)
	line.Write(id)
	if len(raw) > 2 {
		line.WriteByte(',')
	}
	line.Write(raw[1:])
	line.WriteByte('\n')
	b.outMu.Lock()
	defer b.outMu.Unlock()
	_, err = b.env.IO.Out.Write(line.Bytes())
	return err
}

func (b *autoCreateBatch) writeLine(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.outMu.Lock()
	defer b.outMu.Unlock()
	_, err = b.env.IO.Out.Write(append(raw, '\n'))
	return err
}

// report prints the summary: a table on stdout (or the summary line with
// --json), and on stderr the counts, the failures, and the fields the batch
// left empty.
func (b *autoCreateBatch) report(ctx context.Context, results []batchResult) error {
	counts := map[string]int{}
	var failures, running, refused []batchResult
	for _, r := range results {
		if r.Skipped && r.Status == storage.AutoCreateRunning {
			running = append(running, r)
		}
		if !r.Skipped && len(r.Refused) > 0 {
			refused = append(refused, r)
		}
		switch {
		case r.NotStarted:
			counts["not started"]++
		case r.Skipped:
			counts["skipped"]++
		default:
			counts[r.Status]++
		}
		if r.Status == storage.AutoCreateFailed {
			failures = append(failures, r)
		}
	}
	empty := emptyFields(results)
	if b.json {
		if err := b.writeLine(map[string]any{"type": "auto_create_summary", "counts": counts, "empty_fields": empty, "usage": b.usage}); err != nil {
			return err
		}
	} else {
		t := newTable(b.env.IO.Out, "DOCUMENT", "STATUS", "SCHEMA", "FIELDS", "TIME", "TOKENS")
		for _, r := range results {
			fields, took, tokens := "", "", ""
			if r.FieldsTotal > 0 {
				fields = fmt.Sprintf("%d/%d", r.FieldsFilled, r.FieldsTotal)
			}
			if !r.Skipped && !r.NotStarted {
				took = shortDuration(r.Duration)
				tokens = fmt.Sprint(r.Tokens)
			}
			status := r.Status
			if !r.Skipped && len(r.Refused) > 0 {
				status += fmt.Sprintf(" (%d refused)", len(r.Refused))
			}
			if !r.Skipped && r.Ungrounded > 0 {
				status += fmt.Sprintf(" (%d not found)", r.Ungrounded)
			}
			if r.NotStarted {
				status = "not started"
			} else if r.Skipped {
				status = "skipped (" + r.Status + ")"
			}
			t.row(textfmt.Shorten(r.DocumentName, 48), status, r.SchemaName, fields, took, tokens)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	var parts []string
	for _, k := range []string{storage.AutoCreateProposed, storage.AutoCreateFailed, storage.AutoCreatePending, "skipped", "not started"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	fmt.Fprintln(b.env.IO.Err, "auto-create: "+strings.Join(parts, ", "))
	fmt.Fprintln(b.env.IO.Err, b.usage)
	if len(failures) > 0 {
		fmt.Fprintln(b.env.IO.Err, "failed:")
		for _, r := range failures {
			fmt.Fprintf(b.env.IO.Err, "  %s: %s\n", textfmt.Visible(r.DocumentName), textfmt.Visible(r.Error))
		}
	}
	if len(refused) > 0 {
		// The document's text may be steering the model: say so loudly.
		fmt.Fprintln(b.env.IO.Err, "refused, outside the run's scope (review these documents, failed or proposed, before accepting anything of theirs):")
		for _, r := range refused {
			for _, x := range r.Refused {
				fmt.Fprintf(b.env.IO.Err, "  %s: %s: %s\n", textfmt.Visible(r.DocumentName), textfmt.Visible(x.Tool), textfmt.Visible(x.Reason))
			}
		}
	}
	if len(running) > 0 {
		fmt.Fprintln(b.env.IO.Err, "skipped, still marked running:")
		for _, r := range running {
			fmt.Fprintf(b.env.IO.Err, "  %s: %s\n", textfmt.Visible(r.DocumentName), textfmt.Visible(r.Error))
		}
	}
	printEmptyFields(b.env.IO.Err, empty)
	return nil
}

// emptyField is a field some documents of the batch left empty.
type emptyField struct {
	Schema string `json:"schema"`
	Field  string `json:"field"`
	// Empty of Documents proposed with that schema left it empty.
	Empty     int `json:"empty"`
	Documents int `json:"documents"`
}

// emptyFields counts, per schema, the fields the proposed documents left
// empty, those empty everywhere first.
func emptyFields(results []batchResult) []emptyField {
	type key struct{ schema, field string }
	count := map[key]int{}
	docs := map[string]int{}
	for _, r := range results {
		if r.Skipped || r.Status != storage.AutoCreateProposed || r.FieldsTotal == 0 {
			continue
		}
		docs[r.SchemaName]++
		for _, f := range r.EmptyFields {
			count[key{r.SchemaName, f}]++
		}
	}
	out := []emptyField{}
	for k, n := range count {
		out = append(out, emptyField{Schema: k.schema, Field: k.field, Empty: n, Documents: docs[k.schema]})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Schema != b.Schema {
			return a.Schema < b.Schema
		}
		if ra, rb := a.Empty*b.Documents, b.Empty*a.Documents; ra != rb {
			return ra > rb
		}
		return a.Field < b.Field
	})
	return out
}

func printEmptyFields(w io.Writer, fields []emptyField) {
	if len(fields) == 0 {
		return
	}
	fmt.Fprintln(w, "fields left empty:")
	for _, f := range fields {
		fmt.Fprintf(w, "  %s: %s empty in %d of %d\n", textfmt.Visible(f.Schema), textfmt.Visible(f.Field), f.Empty, f.Documents)
	}
}
