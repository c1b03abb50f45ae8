package provider

import (
	"fmt"

	"github.com/docent/docent/agent/textfmt"
)

// Ollama does not refuse a prompt longer than the context window it runs a
// model with: it cuts it and only logs that it did. Docent's estimate
// (EstimateTokens, four characters a token) cannot see that in advance:
// a real tokenizer can count several times more. What the server counted
// comes back in the final chunk, prompt_eval_count, and that is what
// detectTruncation reads.
//
// What Ollama (0.17, server/prompt.go and runner/*/runner.go) does with an
// over-long chat:
//
//  1. The server renders the messages with the model's template and, while
//     the result has more tokens than num_ctx, drops whole messages from the
//     start, keeping every system message and always the last message
//     (chatPrompt; "truncating input messages which exceed context
//     length", a debug log).
//  2. If what is left is still over num_ctx, the runner keeps the first
//     num_keep tokens (4, plus the BOS token) and the last ones, dropping
//     those in between so that exactly num_ctx tokens remain ("truncating
//     input prompt", a warning in the server log). For Docent's messages
//     (system instructions first, then the document) that cuts the
//     instructions and the start of the document: the model sees the end.
//
// prompt_eval_count is the number of prompt tokens the sequence was started
// with after that cut, cached prefix included (numPromptInputs), so:
//
//   - after step 2 it equals num_ctx (a few tokens fewer when the runner
//     moves the cut to keep an image's batch whole);
//   - after step 1 alone it is at most num_ctx, and below what the whole
//     prompt would have counted.
//
// The rule, then:
//
//   - prompt_eval_count ≥ num_ctx − truncationMargin (16 tokens, an eighth
//     of a window smaller than 128): the start was cut (DroppedStart). A prompt that fills the window to within the margin
//     without being cut leaves the answer no room either: Ollama then
//     shifts the context while answering, dropping half of the prompt, so
//     the warning holds.
//   - otherwise, when the request had at least two messages besides the
//     system ones (so that step 1 could drop one) and prompt_eval_count is
//     less than half of EstimateTokens of the request: earlier messages were
//     left out (DroppedMessages). A tokenizer counts under half the
//     estimate only for text of more than eight bytes a token on average
//     (long runs of spaces), not for a whole prompt of instructions, JSON
//     and prose; and Ollama drops messages only when its count is over
//     num_ctx, which is at least the estimate (Chat refuses a larger one).
//     A count under half the estimate means most of the prompt was not
//     evaluated. Messages dropped with less lost than that go unseen: the
//     estimate is too rough to tell them from a tokenizer that counts
//     fewer tokens than it.
//
// Servers of the OpenAI wire refuse an over-long prompt instead (400,
// context_length_exceeded: ErrContextOverflow), so only the Ollama provider
// sets Response.PromptTruncated.

// truncationMargin is how close to num_ctx a prompt_eval_count may come
// before the prompt counts as cut to fit (an eighth of a smaller window).
const truncationMargin = 16

// What a truncated prompt lost: PromptTruncation.Dropped.
const (
	// DroppedStart: the runner kept the first few tokens and the last ones;
	// the start of the prompt (the instructions, the start of the
	// document) was not seen.
	DroppedStart = "start"
	// DroppedMessages: whole earlier messages were left out; the system
	// messages and the latest ones were seen.
	DroppedMessages = "messages"
)

// PromptTruncation says that the server evaluated only part of a prompt:
// the model answered without seeing the rest.
type PromptTruncation struct {
	// Kept is `kept_tokens`: the tokens of the prompt the model saw, as
	// the server counted them (Ollama's prompt_eval_count).
	Kept int `json:"kept_tokens"`
	// Window is `window_tokens`: the context window the call ran with
	// (Ollama's num_ctx).
	Window int `json:"window_tokens"`
	// Estimated is `estimated_tokens`: Docent's estimate of the whole
	// prompt (four characters a token). The server's own count of it was
	// larger than Window; the estimate can be far below that count.
	Estimated int `json:"estimated_tokens"`
	// Dropped is `dropped`: what was not seen, DroppedStart ("start") or
	// DroppedMessages ("messages").
	Dropped string `json:"dropped" ts:"'start' | 'messages'"`
	// MaxContext is `max_context`: DOCENT_MAX_CONTEXT as in force
	// (Config.MaxNumCtx).
	MaxContext int `json:"max_context"`
	// ModelContext is `model_context?`: the model's own context length
	// (/api/show), when known.
	ModelContext int `json:"model_context,omitempty"`
	// Warning is `warning`: the same for people, with what to change (a
	// larger DOCENT_MAX_CONTEXT while the window is below the model's own
	// context length, else a model with a larger one).
	Warning string `json:"warning"`
}

// detectTruncation applies the rule above to a finished Ollama call: req
// as sent, promptEval the server's prompt_eval_count, numCtx the window.
// Nil when the whole prompt was seen, or the server reported no count.
func detectTruncation(req Request, promptEval, numCtx int) *PromptTruncation {
	if promptEval <= 0 || numCtx <= 0 {
		return nil
	}
	est := EstimateTokens(req)
	t := &PromptTruncation{Kept: promptEval, Window: numCtx, Estimated: est}
	switch {
	case promptEval >= numCtx-min(truncationMargin, numCtx/8):
		t.Dropped = DroppedStart
	case droppable(req.Messages) && 2*promptEval < est:
		t.Dropped = DroppedMessages
	default:
		return nil
	}
	return t
}

// droppable reports whether Ollama could leave out a message of msgs: it
// keeps the system messages and the last one.
func droppable(msgs []Message) bool {
	n := 0
	for _, m := range msgs {
		if m.Role != "system" {
			n++
		}
	}
	return n >= 2
}

// warning is PromptTruncation.Warning for t's other fields.
func (t PromptTruncation) warning() string { return t.Explain("") }

// Explain is Warning with the prompt named as subject ("the prompt for
// this document (3 pages, 52,000 characters)"); "" names it by Docent's
// estimate of its size.
func (t PromptTruncation) Explain(subject string) string {
	var saw string
	switch t.Dropped {
	case DroppedMessages:
		of := fmt.Sprintf("the prompt (Docent estimated about %s)", textfmt.Thousands(t.Estimated))
		if subject != "" {
			of = subject
		}
		saw = fmt.Sprintf("the model saw only %s tokens of %s: Ollama left out earlier messages to fit its %s-token context window",
			textfmt.Thousands(t.Kept), of, textfmt.Thousands(t.Window))
	default:
		of := subject
		switch {
		case of != "":
		case t.Estimated > t.Kept:
			of = "about " + textfmt.Thousands(t.Estimated)
		default:
			of = "a longer prompt"
		}
		saw = fmt.Sprintf("the model saw only the last %s tokens of %s: Ollama cut the start (the instructions with it) to fit its %s-token context window",
			textfmt.Thousands(t.Kept), of, textfmt.Thousands(t.Window))
	}
	if t.ModelContext > 0 && t.Window >= t.ModelContext {
		return saw + fmt.Sprintf("; use a model with a larger context (this one's is %s tokens)", textfmt.Thousands(t.ModelContext))
	}
	now := t.MaxContext
	if now <= 0 {
		now = t.Window
	}
	fix := "; raise DOCENT_MAX_CONTEXT (now " + textfmt.Thousands(now)
	if t.ModelContext > 0 {
		fix += ", the model takes up to " + textfmt.Thousands(t.ModelContext)
	}
	return saw + fix + ") or use a model with a larger context"
}
