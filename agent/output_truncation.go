package agent

import (
	"fmt"
	"strings"

	"github.com/docent/docent/agent/provider"
)

// OutputTruncation says that the model server stopped a round's answer at
// its output limit, so that the answer is incomplete: Ollama's done_reason
// and OpenAI's finish_reason "length" ("model_length" on Mistral, when the
// model's context is full). Nothing else shows it: the answer reads like a
// whole one that ends mid-sentence.
type OutputTruncation struct {
	// Reason is `reason`: the done or finish reason the server gave
	// ("length", "model_length", "max_tokens").
	Reason string `json:"reason"`
	// Warning is `warning`: the same for people, with what to change.
	Warning string `json:"warning"`
}

// outputTruncation is the OutputTruncation of a round's answer from model
// (provider-prefixed), nil when the answer was not cut.
func outputTruncation(model string, resp provider.Response) *OutputTruncation {
	if !resp.Truncated {
		return nil
	}
	field, limit := "finish_reason", "the server's output limit, its max_tokens"
	if strings.HasPrefix(model, "ollama/") {
		field, limit = "done_reason", "num_predict in the model's Modelfile, or the context window with DOCENT_MAX_CONTEXT"
	}
	return &OutputTruncation{
		Reason: resp.DoneReason,
		Warning: fmt.Sprintf("the model server stopped the answer at its output limit (%s %q), so it is incomplete: ask for less, or raise the limit (%s)",
			field, resp.DoneReason, limit),
	}
}
