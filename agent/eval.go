package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// An evaluation runs a prompt over documents whose values are known and
// measures the answers, so that a change of model, prompt or schema is
// measured rather than guessed. The known values come from JSON files (a
// folder of ground truth) or from the values people corrected by hand:
// every correction becomes a case that a later prompt must get right. The
// runs are tried, not stored: measuring never replaces a document's data.

// EvalCase is one document and the values known for it, by field path
// ("total", "lines.0.qty"); only those paths are checked for right and
// wrong. Complete says the values are all the document has (a ground
// truth file), so that a value the extraction has beyond them counts as
// extra; corrections are not complete.
type EvalCase struct {
	DocumentID string
	Known      map[string]any
	Complete   bool
}

// EvalRequest asks for one evaluation.
type EvalRequest struct {
	// PromptID is a prompt's id, name or revision id; its latest revision
	// runs unless a revision id is given.
	PromptID string
	// Model overrides the prompt's model.
	Model string
	// Source is storage.EvalTruth or storage.EvalCorrections.
	Source string
	Cases  []EvalCase
	// BaselineID, when set, is an earlier evaluation to compare with.
	BaselineID string
	// Progress, when set, is called after each document.
	Progress func(done, total int, doc EvalDocument)
}

// EvalScore counts the checked values of a field, a document or a run.
type EvalScore struct {
	// Known is how many values were checked.
	Known int `json:"known"`
	// Exact values equal the known ones after normalisation (numbers as
	// numbers, dates as dates, text without case and spacing).
	Exact int `json:"exact"`
	// Wrong values differ; Missing ones are null or absent.
	Wrong   int `json:"wrong"`
	Missing int `json:"missing"`
	// Extra values were extracted where the truth has none (complete
	// truth only).
	Extra int `json:"extra"`
	// Grounded counts exact values found in the document.
	Grounded int `json:"grounded"`
	// Accuracy is Exact / Known; GroundedShare is Grounded / Exact.
	Accuracy      float64 `json:"accuracy"`
	GroundedShare float64 `json:"grounded_share"`
}

func (s *EvalScore) add(o EvalScore) {
	s.Known += o.Known
	s.Exact += o.Exact
	s.Wrong += o.Wrong
	s.Missing += o.Missing
	s.Extra += o.Extra
	s.Grounded += o.Grounded
}

func (s *EvalScore) finish() {
	s.Accuracy, s.GroundedShare = ratio(s.Exact, s.Known), ratio(s.Grounded, s.Exact)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(float64(a)/float64(b)*10000) / 10000
}

// EvalField is the score of one field over all documents. Field is the
// path with array indexes as "*" ("lines.*.qty").
type EvalField struct {
	Field string `json:"field"`
	EvalScore
}

// EvalMismatch is one value that was not right.
type EvalMismatch struct {
	Path string `json:"path"`
	// Kind is "wrong", "missing" or "extra".
	Kind string `json:"kind"`
	Want any    `json:"want,omitempty"`
	Got  any    `json:"got,omitempty"`
	// Status is the evidence status of the extracted value.
	Status string `json:"status,omitempty"`
}

// EvalDocument is the result of one document.
type EvalDocument struct {
	DocumentID   string `json:"document_id"`
	DocumentName string `json:"document_name"`
	// Error says why the document could not be extracted; it then counts
	// every known value as missing.
	Error            string         `json:"error,omitempty"`
	ValidationStatus string         `json:"validation_status,omitempty"`
	Mismatches       []EvalMismatch `json:"mismatches"`
	EvalScore
}

// EvalComparison compares a run with its baseline: the change in exact
// values overall and per field (positive is better).
type EvalComparison struct {
	BaselineID       string         `json:"baseline_id"`
	BaselineAccuracy float64        `json:"baseline_accuracy"`
	AccuracyChange   float64        `json:"accuracy_change"`
	ExactChange      int            `json:"exact_change"`
	Fields           map[string]int `json:"fields"`
}

// EvalReport is an evaluation's result, as `docent eval --json` prints it
// and as it is stored.
type EvalReport struct {
	EvaluationID string          `json:"evaluation_id"`
	PromptID     string          `json:"prompt_id"`
	PromptRevID  string          `json:"prompt_revid"`
	PromptName   string          `json:"prompt_name"`
	Version      int             `json:"version"`
	Model        string          `json:"model"`
	Source       string          `json:"source"`
	Overall      EvalScore       `json:"overall"`
	Fields       []EvalField     `json:"fields"`
	Documents    []EvalDocument  `json:"documents"`
	Baseline     *EvalComparison `json:"baseline,omitempty"`
}

// Evaluate runs the prompt on every case (one after another: a local
// model serves one request at a time anyway), scores the answers and
// stores the report. A document that fails to extract is reported, not
// fatal; a bad request (unknown prompt, no cases) is.
func (x *Extractor) Evaluate(ctx context.Context, req EvalRequest) (EvalReport, error) {
	prompt, err := x.DB.FindPrompt(ctx, strings.TrimSpace(req.PromptID))
	if err != nil {
		return EvalReport{}, err
	}
	if len(req.Cases) == 0 {
		return EvalReport{}, fault.Errorf(fault.Invalid, "nothing to evaluate: no document of prompt %s has known values", prompt.Name)
	}
	var baseline *storage.Evaluation
	if id := strings.TrimSpace(req.BaselineID); id != "" {
		b, err := x.DB.GetEvaluation(ctx, id)
		if err != nil {
			return EvalReport{}, err
		}
		if b.PromptID != prompt.PromptID {
			return EvalReport{}, fault.Errorf(fault.Invalid, "baseline %s evaluated another prompt", id)
		}
		baseline = &b
	}
	rep := EvalReport{PromptID: prompt.PromptID, PromptRevID: prompt.PromptRevID, PromptName: prompt.Name,
		Version: prompt.Version, Model: cmp.Or(req.Model, x.Model, prompt.Model, x.DefaultModel), Source: req.Source,
		Fields: []EvalField{}, Documents: []EvalDocument{}}
	fields := map[string]*EvalField{}
	for i, c := range req.Cases {
		if err := ctx.Err(); err != nil {
			return EvalReport{}, err
		}
		doc := x.evaluateCase(ctx, prompt, req.Model, c, fields)
		rep.Overall.add(doc.EvalScore)
		rep.Documents = append(rep.Documents, doc)
		if req.Progress != nil {
			req.Progress(i+1, len(req.Cases), doc)
		}
	}
	rep.Overall.finish()
	for _, f := range fields {
		f.finish()
		rep.Fields = append(rep.Fields, *f)
	}
	sort.Slice(rep.Fields, func(i, j int) bool { return rep.Fields[i].Field < rep.Fields[j].Field })
	if baseline != nil {
		rep.Baseline = compareEval(*baseline, rep)
	}
	ev, err := x.DB.CreateEvaluation(ctx, storage.NewEvaluation{PromptRevID: prompt.PromptRevID, Model: rep.Model,
		Source: req.Source, BaselineID: req.BaselineID, Report: mustJSON(rep)})
	if err != nil {
		return EvalReport{}, err
	}
	rep.EvaluationID = ev.ID
	return rep, nil
}

// evaluateCase extracts one document and scores it, adding to the fields.
func (x *Extractor) evaluateCase(ctx context.Context, prompt storage.PromptRevision, model string, c EvalCase, fields map[string]*EvalField) EvalDocument {
	doc := EvalDocument{DocumentID: c.DocumentID, Mismatches: []EvalMismatch{}}
	if d, err := x.DB.GetDocument(ctx, c.DocumentID); err == nil {
		doc.DocumentName = d.Name
	}
	got := map[string]any{}
	var ev evidence.Map
	ne, err := x.Try(ctx, ExtractRequest{DocumentID: c.DocumentID, PromptRevID: prompt.PromptRevID, Model: model})
	if err != nil {
		doc.Error = fault.ErrorMessage(err)
	} else {
		doc.ValidationStatus = ne.ValidationStatus
		if leaves, err := evidence.Leaves(ne.Value); err == nil {
			for _, l := range leaves {
				got[l.Path] = l.Value
			}
		}
		_ = json.Unmarshal(ne.Evidence, &ev)
	}
	score := func(path string) *EvalScore {
		key := fieldKey(path)
		if fields[key] == nil {
			fields[key] = &EvalField{Field: key}
		}
		return &fields[key].EvalScore
	}
	for _, path := range slices.Sorted(maps.Keys(c.Known)) {
		want := c.Known[path]
		f := score(path)
		f.Known++
		doc.Known++
		g, ok := got[path]
		switch {
		case !ok || g == nil:
			f.Missing++
			doc.Missing++
			doc.Mismatches = append(doc.Mismatches, EvalMismatch{Path: path, Kind: "missing", Want: want})
		case evidence.Same(want, g):
			f.Exact++
			doc.Exact++
			if ev[path].Status == evidence.Grounded || ev[path].Status == evidence.Ambiguous {
				f.Grounded++
				doc.Grounded++
			}
		default:
			f.Wrong++
			doc.Wrong++
			doc.Mismatches = append(doc.Mismatches, EvalMismatch{Path: path, Kind: "wrong", Want: want, Got: g, Status: string(ev[path].Status)})
		}
	}
	if c.Complete {
		for _, path := range slices.Sorted(maps.Keys(got)) {
			if _, known := c.Known[path]; known || got[path] == nil || isEmptyText(got[path]) {
				continue
			}
			score(path).Extra++
			doc.Extra++
			doc.Mismatches = append(doc.Mismatches, EvalMismatch{Path: path, Kind: "extra", Got: got[path], Status: string(ev[path].Status)})
		}
	}
	doc.finish()
	return doc
}

var indexSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|\.)\d+(\.|$)`) })

// fieldKey is a path with its array indexes as "*": one field of every
// line item.
func fieldKey(path string) string {
	for {
		next := indexSegment().ReplaceAllString(path, "$1*$2")
		if next == path {
			return path
		}
		path = next
	}
}

func isEmptyText(v any) bool {
	s, ok := v.(string)
	return ok && strings.TrimSpace(s) == ""
}

// compareEval compares a report with a stored baseline.
func compareEval(base storage.Evaluation, rep EvalReport) *EvalComparison {
	var old EvalReport
	_ = json.Unmarshal(base.Report, &old)
	c := &EvalComparison{BaselineID: base.ID, BaselineAccuracy: old.Overall.Accuracy,
		AccuracyChange: math.Round((rep.Overall.Accuracy-old.Overall.Accuracy)*10000) / 10000,
		ExactChange:    rep.Overall.Exact - old.Overall.Exact, Fields: map[string]int{}}
	before := map[string]int{}
	for _, f := range old.Fields {
		before[f.Field] = f.Exact
	}
	for _, f := range rep.Fields {
		if d := f.Exact - before[f.Field]; d != 0 {
			c.Fields[f.Field] = d
		}
		delete(before, f.Field)
	}
	for field, n := range before {
		if n != 0 {
			c.Fields[field] = -n
		}
	}
	return c
}

// KnownValues flattens a JSON document of known values into the leaves an
// evaluation checks: null and empty text are not known values.
func KnownValues(truth json.RawMessage) (map[string]any, error) {
	leaves, err := evidence.Leaves(truth)
	if err != nil {
		return nil, fault.Errorf(fault.Invalid, "known values are not JSON: %v", err)
	}
	out := map[string]any{}
	for _, l := range leaves {
		if l.Value == nil || isEmptyText(l.Value) {
			continue
		}
		out[l.Path] = l.Value
	}
	return out, nil
}

// CorrectionCases are the evaluation cases of the corrections people made
// to a prompt's extractions: for each document whose newest extraction with
// the prompt was edited by hand, the values that differ from what the
// model gave.
func CorrectionCases(ctx context.Context, db *storage.DB, promptID string) ([]EvalCase, error) {
	p, err := db.FindPrompt(ctx, strings.TrimSpace(promptID))
	if err != nil {
		return nil, err
	}
	xs, err := db.ListExtractionsByPrompt(ctx, p.PromptID)
	if err != nil {
		return nil, err
	}
	var cases []EvalCase
	for _, x := range xs {
		if !x.Edited {
			continue
		}
		now, err := leafMap(x.Value)
		if err != nil {
			return nil, fmt.Errorf("extraction %s: %w", x.ID, err)
		}
		was, err := leafMap(x.OriginalValue)
		if err != nil {
			return nil, fmt.Errorf("extraction %s: %w", x.ID, err)
		}
		known := map[string]any{}
		for path, v := range now {
			if v == nil || isEmptyText(v) {
				continue // a value cleared by hand is not a value to find
			}
			if old, ok := was[path]; !ok || old == nil || !evidence.Same(old, v) {
				known[path] = v
			}
		}
		if len(known) > 0 {
			cases = append(cases, EvalCase{DocumentID: x.DocumentID, Known: known})
		}
	}
	return cases, nil
}

func leafMap(v json.RawMessage) (map[string]any, error) {
	out := map[string]any{}
	if len(v) == 0 || string(v) == "null" {
		return out, nil
	}
	leaves, err := evidence.Leaves(v)
	for _, l := range leaves {
		out[l.Path] = l.Value
	}
	return out, err
}
