package provider

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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

// benchEmbedFlood embeds one query against a server that streams 600 MB
// for its vector (modeltest's Flood), one call per op. peak-RSS-MB is the
// test process's peak resident memory (VmHWM), so run one sub-benchmark
// per process:
//
//	go test -run '^$' -bench 'EmbedFlood/ollama' -benchtime 1x ./agent/provider
//
// Past maxEmbedAnswer the client stops reading: the call is an error and
// the peak stays that of the process.
func benchEmbedFlood(b *testing.B, wire string) {
	const flood = 600 << 20
	s := modeltest.New(b, modeltest.EmbedModel)
	cfg := testConfig(s)
	cfg.IdleTimeout = 5 * time.Minute // DOCENT_IDLE_TIMEOUT's default, which bounds a background batch
	var p Embedder
	for _, q := range providers(b, cfg) {
		if q.Name() == wire {
			p = q.(Embedder)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s.EmbedFaults(modeltest.EmbedFault{Flood: flood})
		vecs, err := p.Embed(ctx, "nomic-embed-text", []string{"Taxifahrt"})
		if err == nil {
			b.Logf("%d MB answer taken: a vector of %d numbers", flood>>20, len(vecs[0]))
		} else {
			b.Logf("%d MB answer refused: %v", flood>>20, err)
		}
	}
	b.ReportMetric(float64(vmHWM(b))/1024, "peak-RSS-MB")
}

// vmHWM is the process's peak resident memory in KiB, from
// /proc/self/status (Linux).
func vmHWM(b *testing.B) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("peak memory: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb
		}
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}

func BenchmarkEmbedFlood(b *testing.B) {
	for _, wire := range []string{"ollama", "openai"} {
		b.Run(wire, func(b *testing.B) { benchEmbedFlood(b, wire) })
	}
}
