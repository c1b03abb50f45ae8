package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// benchToolRounds is how many rounds of BenchmarkTurnRound's turn call a
// tool; one more round answers.
const benchToolRounds = 5

// longPages is a document text long enough to fill the system message's
// excerpt (agent.ExcerptCap).
func longPages() []string {
	pages := make([]string, 6)
	for p := range pages {
		var b strings.Builder
		for l := 0; b.Len() < 2500; l++ {
			fmt.Fprintf(&b, "Line %d of page %d: item %d, quantity %d, unit price %d.%02d EUR\n", l+1, p+1, p*100+l, l%7+1, l*3%97, l*13%100)
		}
		pages[p] = b.String()
	}
	return pages
}

// newLongTurnFixture is newTurnFixture for a testing.TB with a document of
// long text.
func newLongTurnFixture(tb testing.TB) *turnFixture {
	tb.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(tb.TempDir(), "docent.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "ledger.pdf", MediaType: "application/pdf", Data: []byte("%PDF ledger"), Pages: longPages(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv := modeltest.New(tb)
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: srv.OllamaURL(), OpenAIBaseURL: srv.OpenAIURL(), OpenAIKey: "test",
		IdleTimeout: 5 * time.Second, MaxRetries: -1,
	})
	a := &agent.Agent{DB: db, Providers: reg, Extractor: &agent.Extractor{DB: db, Providers: reg}, DefaultModel: "ollama/qwen3:8b"}
	return &turnFixture{db: db, srv: srv, doc: doc, agent: a}
}

// getDocumentRounds scripts a model that calls get_document in each of the
// first benchToolRounds rounds of a fresh thread, then answers. It reads
// the round from the request's length (system, user, then a call and its
// result per round), so it needs no state.
func getDocumentRounds(req modeltest.Request) modeltest.Reply {
	if (len(req.Messages)-2)/2 < benchToolRounds {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "get_document", Arguments: `{}`}}}
	}
	return modeltest.Reply{Text: "done"}
}

// commonPrefixShare is the length of the common prefix of a and b over the
// length of b.
func commonPrefixShare(a, b string) float64 {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if len(b) == 0 {
		return 1
	}
	return float64(n) / float64(len(b))
}

// minPrefixShare is the smallest share of the system message (the first
// message) of request k+1 that is byte-identical to that of request k.
func minPrefixShare(tb testing.TB, reqs []modeltest.Request) float64 {
	tb.Helper()
	share := 1.0
	var prev string
	for i, r := range reqs {
		var m modeltest.Message
		if len(r.Messages) == 0 {
			tb.Fatalf("request %d has no messages", i)
		}
		if err := json.Unmarshal(r.Messages[0], &m); err != nil || m.Role != "system" {
			tb.Fatalf("request %d: first message %s: %v", i, r.Messages[0], err)
		}
		if i > 0 {
			share = min(share, commonPrefixShare(prev, m.Content))
		}
		prev = m.Content
	}
	return share
}

// BenchmarkTurnRound measures Docent's own time per model round of a turn:
// a zero-latency scripted model calls a read-only tool (get_document) for
// benchToolRounds rounds, then answers; auto-approve. ns/round is the turn's
// wall time over its model rounds (tool rounds plus the answer), so it
// includes the provider client, the loopback HTTP and the scripted server,
// but no model time. prefix-identical-% is the smallest share of the system
// message that stays byte-identical from one round to the next.
func BenchmarkTurnRound(b *testing.B) {
	for _, wire := range []string{"ollama", "openai"} {
		b.Run(wire, func(b *testing.B) {
			f := newLongTurnFixture(b)
			f.srv.Handle(getDocumentRounds)
			ctx := context.Background()
			req := agent.ChatRequest{DocumentID: f.doc.ID, Message: "describe it", Model: wire + "/qwen3:8b", AutoApprove: true}
			// One turn outside the timing: warms the clients and checks the script.
			res, err := f.agent.Chat(ctx, req, nil)
			if err != nil || res.Text != "done" || len(res.ExecutedRounds) != benchToolRounds {
				b.Fatalf("warm-up turn %+v: %v", res, err)
			}
			share := minPrefixShare(b, f.srv.Requests())
			rounds := benchToolRounds + 1
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := f.agent.Chat(ctx, req, nil); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*rounds), "ns/round")
			b.ReportMetric(100*share, "prefix-identical-%")
		})
	}
}

// TestTurnSystemMessagePrefixIsStable checks that a round's system message
// starts with nearly all of the previous round's, byte for byte, for a
// document of long text, also when the working state changes between
// rounds: only the working state at its end may differ.
func TestTurnSystemMessagePrefixIsStable(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newLongTurnFixture(t)
		f.srv.Enqueue(
			modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "get_document", Arguments: `{}`}}},
			modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}}, // changes the working state
			modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "get_ocr_text", Arguments: `{"page_num":3}`}}},
			modeltest.Reply{Text: "done"},
		)
		res, _ := f.chat(t, agent.ChatRequest{Message: "describe it", Model: model, AutoApprove: true})
		if res.Text != "done" || res.WorkingState.SchemaRevID == "" {
			t.Fatalf("result %+v", res)
		}
		reqs := f.srv.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests", len(reqs))
		}
		share := minPrefixShare(t, reqs)
		t.Logf("smallest byte-identical prefix of the system message between rounds: %.2f%%", 100*share)
		if share <= 0.90 {
			t.Errorf("only %.1f%% of the system message stayed byte-identical between rounds", 100*share)
		}
		if share == 1 {
			t.Error("the working state change did not show in the system message")
		}
	})
}
