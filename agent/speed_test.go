package agent_test

import (
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
