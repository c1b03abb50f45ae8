package provider

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docent/docent/agent/modeltest"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// Both wires carry a batch of texts and bring back one vector each, in
// order, from the official clients: synonyms across English and German
// are closer than unrelated texts.
func TestEmbedReturnsOneVectorPerTextInOrder(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		texts := []string{"car hire", "Autovermietung Rechnung", "Taxifahrt vom 29.10."}
		vecs, err := p.(Embedder).Embed(context.Background(), "nomic-embed-text", texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vecs) != 3 || len(vecs[0]) != modeltest.DefaultDimensions {
			t.Fatalf("got %d vectors of %d dimensions", len(vecs), len(vecs[0]))
		}
		for i, text := range texts {
			if got := cosine(vecs[i], modeltest.Vector(text, 0)); got < 0.9999 {
				t.Errorf("vector %d is not the one for %q (cosine %v): out of order", i, text, got)
			}
		}
		if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far {
			t.Errorf("car hire is as close to Taxifahrt (%v) as to Autovermietung (%v)", far, near)
		}
		reqs := s.EmbedRequests()
		if len(reqs) != 1 || len(reqs[0].Inputs) != 3 || reqs[0].Model != "nomic-embed-text" {
			t.Errorf("requests %+v: want one batch of 3 for nomic-embed-text", reqs)
		}
	}, modeltest.DefaultModel, modeltest.EmbedModel)
}

// A model that answers wrong vectors, or none, is an error that says so,
// never vectors to store.
func TestEmbedFaultsAreClearErrors(t *testing.T) {
	cases := []struct {
		name  string
		fault modeltest.EmbedFault
		model string
		want  *Error
	}{
		{"not pulled", modeltest.EmbedFault{}, "missing-embed", ErrModelNotFound},
		{"NaN", modeltest.EmbedFault{NaN: true}, "nomic-embed-text", ErrBadResponse},
		{"zero", modeltest.EmbedFault{Zero: true}, "nomic-embed-text", ErrBadResponse},
		{"server error", modeltest.EmbedFault{Status: 500, Message: "out of memory"}, "nomic-embed-text", ErrServerError},
		{"timeout", modeltest.EmbedFault{Delay: time.Minute}, "nomic-embed-text", ErrTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
				// Three of each fault: the server error is retried.
				s.EmbedFaults(c.fault, c.fault, c.fault)
				switch p := p.(type) {
				case *Ollama:
					p.cfg.IdleTimeout = 200 * time.Millisecond
				case *OpenAI:
					p.cfg.IdleTimeout = 200 * time.Millisecond
				}
				vecs, err := p.(Embedder).Embed(context.Background(), c.model, []string{"Rechnung", "invoice"})
				if vecs != nil {
					t.Errorf("vectors %v returned with the error", len(vecs))
				}
				wantKind(t, err, c.want)
			}, modeltest.EmbedModel)
		})
	}
}

// A batch whose vectors differ in size is refused (checkVectors), and so is
// an answer with fewer vectors than texts.
func TestCheckVectorsRefusesMixedDimensions(t *testing.T) {
	if err := checkVectors("m", 2, [][]float32{{1, 0}, {1, 0, 0}}); ErrorKind(err) != KindBadResponse {
		t.Errorf("mixed dimensions: %v", err)
	}
	if err := checkVectors("m", 2, [][]float32{{1, 0}}); ErrorKind(err) != KindBadResponse {
		t.Errorf("missing vector: %v", err)
	}
	if err := checkVectors("m", 1, [][]float32{{float32(math.Inf(1))}}); ErrorKind(err) != KindBadResponse {
		t.Errorf("infinite value: %v", err)
	}
	if err := checkVectors("m", 1, [][]float32{{0, 0.5}}); err != nil {
		t.Errorf("a good vector: %v", err)
	}
}

// The registry routes an embedding model id by its prefix.
func TestRegistryEmbedByModelID(t *testing.T) {
	s := modeltest.New(t, modeltest.EmbedModel)
	r := NewRegistry(testConfig(s))
	for _, id := range []string{"ollama/nomic-embed-text", "openai/nomic-embed-text"} {
		if _, err := r.Embed(context.Background(), id, []string{"Summe"}); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if _, err := r.Embed(context.Background(), "nomic-embed-text", []string{"x"}); err == nil {
		t.Error("a model id without a provider was taken")
	}
	if reqs := s.EmbedRequests(); len(reqs) != 2 || reqs[0].Wire != "ollama" || reqs[1].Wire != "openai" {
		t.Errorf("requests %+v", reqs)
	}
}

// An answer larger than the vectors of its texts can need (a server that
// streams 16 MB for one text) is a bad answer, and the client stops
// reading it near the bound (maxEmbedAnswer) instead of holding it all.
// On the in-memory network the server writes only what the client reads,
// so what it managed to send is what the client took.
func TestEmbedAnswerLargerThanItsVectorsIsRefused(t *testing.T) {
	for _, name := range []string{"ollama", "openai"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := modeltest.NewInMemory(t, modeltest.EmbedModel)
				var sent atomic.Int64
				const flood = 16 << 20
				s.EmbedFaults(modeltest.EmbedFault{Flood: flood, FloodSent: func(n int64) { sent.Store(n) }})
				for _, p := range providers(t, testConfig(s)) {
					if p.Name() != name {
						continue
					}
					vecs, err := p.(Embedder).Embed(context.Background(), "nomic-embed-text", []string{"Taxifahrt"})
					if vecs != nil {
						t.Errorf("%d vectors returned from an answer of %d MB", len(vecs), flood>>20)
					}
					wantKind(t, err, ErrBadResponse)
					if err == nil || !strings.Contains(err.Error(), "answered more than 320 KiB for 1 text,") {
						t.Errorf("error %v, want one that says the answer was over 320 KiB", err)
					}
				}
				synctest.Wait() // the server's handler has seen the client go
				if n := sent.Load(); n <= 0 || n > 2*maxEmbedAnswer(1) {
					t.Errorf("the server sent %d bytes of its %d before the client stopped, want at most about %d", n, flood, maxEmbedAnswer(1))
				}
			})
		})
	}
}

// endsMeter records how the metered calls ended.
type endsMeter struct {
	mu   sync.Mutex
	ends []CallEnd
}

func (m *endsMeter) Begin(context.Context, Call) (func(CallEnd), error) {
	return func(e CallEnd) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.ends = append(m.ends, e)
	}, nil
}

// An embedding's tokens are those the server reports (Ollama's
// prompt_eval_count, OpenAI's usage.prompt_tokens), not Docent's
// estimate; the scripted server counts three bytes a token, the estimate
// four.
func TestEmbedTokensAreTheServers(t *testing.T) {
	s := modeltest.New(t, modeltest.EmbedModel)
	m := &endsMeter{}
	r := NewRegistry(testConfig(s)).Metered(m)
	texts := []string{"Rechnungssumme 12,50 EUR", "Total due on delivery"}
	want := modeltest.Tokens(strings.Join(texts, " "))
	for _, id := range []string{"ollama/nomic-embed-text", "openai/nomic-embed-text"} {
		if _, err := r.Embed(context.Background(), id, texts); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	for i, e := range m.ends {
		if e.Usage.PromptTokens != want || e.Estimated {
			t.Errorf("call %d ended with %+v (estimated %v), want the server's %d tokens", i, e.Usage, e.Estimated, want)
		}
	}
}
