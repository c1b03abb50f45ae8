package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
)

// A streamed round's usage says how long the first token took and how
// fast the rest came. Only lower bounds are checked: load makes a call
// slower, never faster.
func TestUsageCarriesTheRoundsSpeed(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		f.srv.Enqueue(modeltest.Reply{Text: "twelve chars", ChunkRunes: 3, Fault: modeltest.Fault{FirstTokenDelay: 40 * time.Millisecond}})
		_, evs := f.chat(t, agent.ChatRequest{Message: "hi", Model: model})
		usages := agent.PayloadsOf[agent.UsagePayload](evs)
		if len(usages) != 1 {
			t.Fatalf("%d usage events", len(usages))
		}
		u := usages[0]
		if u.FirstTokenMS < 40 || u.TokensPerSecond <= 0 {
			t.Errorf("usage %+v: want first_token_ms ≥ 40 (the server waited that long) and a tokens_per_second", u)
		}
	})
}

// The assistant message of a round keeps what the live turn showed: the
// model, how long it thought and how fast it answered, so that a thread
// reopened later shows the same (MessageData).
func TestAssistantMessageKeepsTheRoundsFacts(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{Thinking: "let me think about it", Text: "twelve chars", ChunkRunes: 3,
		Fault: modeltest.Fault{FirstTokenDelay: 20 * time.Millisecond}})
	res, _ := f.chat(t, agent.ChatRequest{Message: "hi", Model: "ollama/qwen3:8b"})
	msgs, err := f.db.ThreadMessages(context.Background(), res.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	d := agent.ParseMessageData(last.Data)
	if last.Role != "assistant" || d.Model != "ollama/qwen3:8b" || d.FirstTokenMS < 20 || d.TokensPerSecond <= 0 || d.ThinkingMS <= 0 {
		t.Errorf("assistant message %s data %s: want model, first_token_ms ≥ 20, tokens_per_second and thinking_ms", last.Role, last.Data)
	}
}
