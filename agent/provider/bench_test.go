package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// benchChat measures one provider against a zero-latency scripted server:
// ns/op is the cost of a call, ns/chunk that cost spread over the deltas
// streamed (a 1-chunk reply shows the per-call overhead).
func benchChat(b *testing.B, wire string) {
	for _, chunks := range []int{1, 256} {
		b.Run(map[int]string{1: "1chunk", 256: "256chunks"}[chunks], func(b *testing.B) {
			s := modeltest.New(b)
			text := strings.Repeat("abcd", chunks)
			s.Handle(func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Text: text, ChunkRunes: 4} })
			var p Provider
			for _, q := range providers(b, testConfig(s)) {
				if q.Name() == wire {
					p = q
				}
			}
			req := userReq("hi")
			ctx := context.Background()
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				resp, err := p.Chat(ctx, req, func(Delta) error { n++; return nil })
				if err != nil || len(resp.Text) != len(text) {
					b.Fatalf("resp %q err %v", resp.Text, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/chunk")
		})
	}
}

func BenchmarkOllamaChat(b *testing.B) { benchChat(b, "ollama") }

func BenchmarkOpenAIChat(b *testing.B) { benchChat(b, "openai") }
