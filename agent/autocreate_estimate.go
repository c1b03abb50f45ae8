package agent

import (
	"context"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// AutoCreateEstimate is what an auto-create batch is expected to spend,
// before it starts: the most calls its runs may make (the tool limits of
// a headless run), each with its document's text in the prompt, priced
// as the meter will price them.
type AutoCreateEstimate struct {
	Documents int `json:"documents"`
	// Calls is the model calls the runs may make at most.
	Calls        int `json:"calls"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// CostUSD is left out when the model's price is unknown (Priced
	// false); a local model's is 0.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	Priced  bool     `json:"priced"`
	// Model is the provider-prefixed model the batch runs on.
	Model string `json:"model"`
}

// estimateOutputTokens is what one call of a run is counted to answer: a
// tool call with its arguments (a schema, a prompt) or an extraction's
// JSON.
const estimateOutputTokens = 512

// autoCreateCalls is how many model calls one run may make: a round for
// each tool call its limits allow (AutoCreateCallLimits), one that reads
// the document and one that answers, and an extraction's call for each
// run_extraction.
func autoCreateCalls() (rounds, extractions int) {
	rounds = 2
	for _, n := range AutoCreateCallLimits() {
		rounds += n
	}
	return rounds, AutoCreateCallLimits()["run_extraction"]
}

// EstimateAutoCreate estimates an auto-create batch over the documents on
// model ("" for the default model). A document's tokens are its text's
// length at four characters a token, as the meter estimates a prompt; a
// round's prompt also holds the instructions and the tools.
func (a *Agent) EstimateAutoCreate(ctx context.Context, documentIDs []string, model string) (AutoCreateEstimate, error) {
	if len(documentIDs) == 0 {
		return AutoCreateEstimate{}, fault.Errorf(fault.Invalid, "give the documents to estimate").On("document_ids")
	}
	model = strings.TrimSpace(model)
	if model == "" {
		model = a.DefaultModel
	}
	if model == "" {
		return AutoCreateEstimate{}, fault.Errorf(fault.Invalid, "no model: choose a default model in Settings, or give one").On("model")
	}
	if _, _, err := a.Providers.For(model); err != nil {
		return AutoCreateEstimate{}, fault.Errorf(fault.Invalid, "%v", err).On("model")
	}
	providerName, name, _ := strings.Cut(model, "/")
	p := &Prices{DB: a.DB, Logger: a.Logger}
	rounds, extractions := autoCreateCalls()
	overhead := provider.EstimateTokens(provider.Request{
		Messages: []provider.Message{{Role: "system", Content: systemInstructions}, {Role: "user", Content: AutoCreateMessage}},
		Tools:    ProviderTools(),
	})
	est := AutoCreateEstimate{Documents: len(documentIDs), Model: model, Priced: true}
	cost := 0.0
	for _, id := range documentIDs {
		pages, err := a.DB.DocumentText(ctx, id)
		if err != nil {
			return AutoCreateEstimate{}, err
		}
		chars := 0
		for _, t := range pages {
			chars += len(t)
		}
		doc := chars / 4
		for _, call := range []struct{ n, prompt int }{{rounds, overhead + doc}, {extractions, doc}} {
			est.Calls += call.n
			est.InputTokens += call.n * call.prompt
			est.OutputTokens += call.n * estimateOutputTokens
			// Each call is priced alone: a price may be higher for a
			// long prompt.
			usd, ok := 0.0, true // a local model costs 0, as the meter prices it
			if providerName != storage.ProviderLocal {
				usd, ok = p.Cost(ctx, providerName, name, call.prompt, estimateOutputTokens, 0)
			}
			est.Priced = est.Priced && ok
			cost += float64(call.n) * usd
		}
	}
	if est.Priced {
		est.CostUSD = &cost
	}
	return est, nil
}
