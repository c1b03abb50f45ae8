package agent_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
)

func TestTurnWhosePromptWasCutWarnsInItsUsageEvent(t *testing.T) {
	f := newTurnFixture(t)
	// A 20,000-token window (DOCENT_MAX_CONTEXT=20000 on a model of
	// 40,960) and a question of 60,000 bytes: with the instructions and the
	// tools about 18,500 tokens by Docent's estimate, so the turn goes
	// ahead, and about 25,000 as the server counts them, so Ollama cuts the
	// start of the prompt and says nothing but prompt_eval_count.
	reg := provider.NewRegistry(provider.Config{OllamaHost: f.srv.OllamaURL(), MaxNumCtx: 20000, IdleTimeout: 5 * time.Second, MaxRetries: -1})
	f.agent = &agent.Agent{DB: f.db, Providers: reg, DefaultModel: "ollama/qwen3:8b"}
	f.srv.Enqueue(modeltest.Reply{Text: "A long list of widgets."})
	_, events := f.chat(t, agent.ChatRequest{Message: "Summarize this: " + strings.Repeat("Widgets 10.00 ", 60000/14)})
	if rec := f.srv.Requests()[0]; rec.Truncated != modeltest.TruncatedStart {
		t.Fatalf("the server did not cut the prompt (%d tokens in a %d window): make the question longer", rec.PromptTokens, rec.Window)
	}
	usages := agent.PayloadsOf[agent.UsagePayload](events)
	if len(usages) != 1 || usages[0].PromptTruncated == nil {
		t.Fatalf("usage events %+v, want one with prompt_truncated", usages)
	}
	tr := usages[0].PromptTruncated
	t.Logf("the server counted %d tokens, Docent estimated %d", f.srv.Requests()[0].PromptTokens, tr.Estimated)
	if tr.Kept != 20000 || tr.Window != 20000 || tr.Dropped != provider.DroppedStart || tr.MaxContext != 20000 || tr.ModelContext != 40960 {
		t.Errorf("prompt_truncated = %+v", *tr)
	}
	for _, want := range []string{"the model saw only the last 20,000 tokens", "raise DOCENT_MAX_CONTEXT (now 20,000, the model takes up to 40,960)"} {
		if !strings.Contains(tr.Warning, want) {
			t.Errorf("warning %q does not say %q", tr.Warning, want)
		}
	}
	var wire struct {
		Type            string          `json:"type"`
		PromptTokens    int             `json:"prompt_tokens"`
		PromptTruncated json.RawMessage `json:"prompt_truncated"`
	}
	for _, e := range events {
		if e.Type != agent.EventUsage {
			continue
		}
		b, err := json.Marshal(e)
		if err != nil || json.Unmarshal(b, &wire) != nil {
			t.Fatalf("usage event %s: %v", b, err)
		}
		var fields map[string]any
		if err := json.Unmarshal(wire.PromptTruncated, &fields); err != nil || wire.PromptTokens != 20000 {
			t.Fatalf("usage event %s", b)
		}
		for _, k := range []string{"kept_tokens", "window_tokens", "estimated_tokens", "dropped", "max_context", "model_context", "warning"} {
			if _, ok := fields[k]; !ok {
				t.Errorf("prompt_truncated %s has no %s", wire.PromptTruncated, k)
			}
		}
	}

	// A turn that fits says nothing of it.
	f.srv.Enqueue(modeltest.Reply{Text: "12.50 EUR"})
	_, events = f.chat(t, agent.ChatRequest{Message: "What is the total?"})
	for _, e := range events {
		if b, _ := json.Marshal(e); e.Type == agent.EventUsage && strings.Contains(string(b), "prompt_truncated") {
			t.Errorf("a prompt that fits: %s", b)
		}
	}
}
