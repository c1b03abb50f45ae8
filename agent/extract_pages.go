package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/storage"
)

// A document longer than the model's context window is extracted page
// window by page window, and the answers are merged, rather than sent
// whole for the server to refuse or, as Ollama does, silently cut.
//
// The length is judged conservatively, at 3 characters a token (Docent's
// usual estimate is 4, and real tokenizers count more on numbers, tables
// and non-English text); a quarter of the window is left for the answer.

// charsPerToken is the conservative estimate for deciding windows.
const charsPerToken = 3

// pageWindows splits a document's pages into runs that each fit the
// model's window with the prompt's instructions, or returns nil when the
// whole document fits (or the window is unknown). A page longer than a
// window is a window of its own: the server then reports what it cut.
func (x *Extractor) pageWindows(ctx context.Context, job *extractJob) [][2]int {
	if x.Providers == nil || len(job.texts) < 2 {
		return nil
	}
	window := x.Providers.Limits(ctx, job.modelID).ContextWindow
	if window <= 0 {
		return nil
	}
	budget := window*3/4*charsPerToken - len(extractInstruction) - len(job.prompt.Content)
	if len(job.text) <= budget || budget <= 0 {
		return nil
	}
	var out [][2]int
	start, size := 0, 0
	for i, p := range job.texts {
		n := len(p) + 32 // the page marker and spacing
		if i > start && size+n > budget {
			out = append(out, [2]int{start, i})
			start, size = i, 0
		}
		size += n
	}
	return append(out, [2]int{start, len(job.texts)})
}

// tryWindows extracts each page window and merges the answers: for each
// field the first value a window found, items of lists from every window
// (each once). The merged value is validated against the schema.
func (x *Extractor) tryWindows(ctx context.Context, job *extractJob, windows [][2]int) (storage.NewExtraction, error) {
	var usage provider.Usage
	var merged any
	var raws, cut []string
	for _, w := range windows {
		var b strings.Builder
		for i := w[0]; i < w[1]; i++ {
			if i > w[0] {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "--- page %d ---\n%s", i+1, strings.TrimSpace(job.texts[i]))
		}
		messages := []provider.Message{
			{Role: "system", Content: extractInstruction + "\n\n" + job.prompt.Content +
				fmt.Sprintf("\n\nThis is pages %s of a %d-page document: extract what these pages show; use null for what they do not.", pageRange(w), len(job.texts))},
			{Role: "user", Content: b.String()},
		}
		resp, err := job.provider.Chat(ctx, provider.Request{Model: job.model, Messages: messages, Format: job.format}, nil)
		if err != nil {
			return storage.NewExtraction{}, job.callError(err)
		}
		usage.PromptTokens += resp.Usage.PromptTokens
		usage.CompletionTokens += resp.Usage.CompletionTokens
		raws = append(raws, fmt.Sprintf("--- pages %s ---\n%s", pageRange(w), resp.Text))
		if resp.PromptTruncated != nil {
			cut = append(cut, pageRange(w))
		}
		value, err := parseAnswer(resp.Text)
		if err != nil {
			x.logger().WarnContext(ctx, "a page window's answer is not JSON; the other windows are kept",
				"document", job.doc.ID, "pages", pageRange(w), "err", err)
			continue
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(string(value)))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			merged = mergeWindowValues(merged, v)
		}
	}

	var value json.RawMessage
	problems := []schema.Problem{{Path: "/", Message: "no page window's answer was JSON"}}
	if merged != nil {
		value = mustJSON(merged)
		problems = job.compiled.Validate(value)
	}
	parts := make([]string, len(windows))
	for i, w := range windows {
		parts[i] = pageRange(w)
	}
	note := fmt.Sprintf("extracted in %d page windows (pages %s), as the document is longer than %s's context window; the answers were merged",
		len(windows), strings.Join(parts, ", "), job.modelID)
	if len(cut) > 0 {
		note += fmt.Sprintf("; the server still cut the prompt of pages %s: raise DOCENT_MAX_CONTEXT or use a model with a larger context", strings.Join(cut, ", "))
	}
	return x.extraction(ctx, job, answer{raw: strings.Join(raws, "\n\n"), value: value, problems: problems,
		usage: usage, truncated: len(cut) > 0, note: note}), nil
}

// pageRange names a window's pages, 1-based: "3" or "1-4".
func pageRange(w [2]int) string {
	if w[1]-w[0] == 1 {
		return fmt.Sprint(w[0] + 1)
	}
	return fmt.Sprintf("%d-%d", w[0]+1, w[1])
}

// mergeWindowValues merges a later window's answer into the earlier ones':
// objects field by field, the first non-empty value (schema.Empty) winning;
// lists joined, each item once.
func mergeWindowValues(a, b any) any {
	if schema.Empty(a) {
		return b
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return a
		}
		for k, v := range y {
			x[k] = mergeWindowValues(x[k], v)
		}
		return x
	case []any:
		y, ok := b.([]any)
		if !ok {
			return a
		}
		for _, item := range y {
			if !containsValue(x, item) {
				x = append(x, item)
			}
		}
		return x
	}
	return a
}

func containsValue(list []any, v any) bool {
	for _, item := range list {
		if reflect.DeepEqual(item, v) {
			return true
		}
	}
	return false
}
