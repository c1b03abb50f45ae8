package agent_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// embedFixture is a store with a few documents and an embedder on the
// scripted server's embedding model.
type embedFixture struct {
	db  *storage.DB
	srv *modeltest.Server
	emb *agent.Embedder
}

func newEmbedFixture(t *testing.T, wire string, pages ...string) *embedFixture {
	t.Helper()
	srv := modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	return newEmbedFixtureOn(t, srv, 5*time.Second, wire, pages...)
}

// newEmbedFixtureOn is newEmbedFixture on srv (modeltest.NewInMemory's
// inside a testing/synctest bubble), with the providers' idle timeout.
func newEmbedFixtureOn(t *testing.T, srv *modeltest.Server, idle time.Duration, wire string, pages ...string) *embedFixture {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i, p := range pages {
		if _, err := db.CreateDocument(ctx, storage.NewDocument{Name: fmt.Sprintf("doc%d.txt", i+1), MediaType: "text/plain", Data: []byte(p), Pages: []string{p}}); err != nil {
			t.Fatal(err)
		}
	}
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: srv.OllamaURL(), OpenAIBaseURL: srv.OpenAIURL(), OpenAIKey: "test",
		IdleTimeout: idle, MaxRetries: -1, HTTPClient: srv.Client(),
	})
	return &embedFixture{db: db, srv: srv, emb: &agent.Embedder{DB: db, Providers: reg, Model: wire + "/nomic-embed-text", BatchSize: 2}}
}

func (f *embedFixture) embedded(t *testing.T) int {
	t.Helper()
	p, err := f.emb.Progress(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return p.Embedded
}

// A run stopped part way (its context cancelled after the second batch)
// keeps what it stored; the next run asks the model only for the rest.
func TestEmbedMissingResumesWithWhatIsMissing(t *testing.T) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) {
			f := newEmbedFixture(t, wire, "Rechnung eins", "Rechnung zwei", "Taxifahrt", "Autovermietung", "Summe 12,50")
			ctx, cancel := context.WithCancel(context.Background())
			batches := 0
			_, err := f.emb.EmbedMissing(ctx, func(done int) {
				if batches++; batches == 2 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("the stopped run: %v, want canceled", err)
			}
			if n := f.embedded(t); n != 4 {
				t.Fatalf("%d chunks embedded by the stopped run, want 4 (two batches of 2)", n)
			}
			before := len(f.srv.EmbedRequests())
			n, err := f.emb.EmbedMissing(context.Background(), nil)
			if err != nil || n != 1 {
				t.Fatalf("the second run embedded %d: %v, want 1", n, err)
			}
			reqs := f.srv.EmbedRequests()[before:]
			if len(reqs) != 1 || len(reqs[0].Inputs) != 1 || reqs[0].Inputs[0] != "search_document: Summe 12,50" {
				t.Errorf("the second run asked %+v, want only the missing chunk", reqs)
			}
			if n, err := f.emb.EmbedMissing(context.Background(), nil); err != nil || n != 0 || len(f.srv.EmbedRequests()) != before+1 {
				t.Errorf("a third run embedded %d (%v) and asked the model again", n, err)
			}
		})
	}
}

// A model that is not there, or answers wrongly, leaves the chunks
// waiting: nothing is stored, nothing marked failed, and the next run
// embeds them.
func TestEmbedMissingLeavesChunksWaitingWhenTheModelFails(t *testing.T) {
	f := newEmbedFixture(t, "ollama", "Rechnung", "Taxifahrt")
	for _, c := range []struct {
		name  string
		fault modeltest.EmbedFault
		want  string
	}{
		{"server down", modeltest.EmbedFault{Status: 503, Message: "loading"}, "Ollama failed"},
		{"other dimension", modeltest.EmbedFault{Dimensions: 64}, ""},
	} {
		if c.name == "other dimension" {
			// One chunk stored at 256 dimensions; the model then answers 64.
			if _, err := f.emb.EmbedMissing(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if _, err := f.db.CreateDocument(context.Background(), storage.NewDocument{Name: "new.txt", MediaType: "text/plain", Data: []byte("neu"), Pages: []string{"Neue Rechnung"}}); err != nil {
				t.Fatal(err)
			}
		}
		before := f.embedded(t)
		f.srv.EmbedFaults(c.fault)
		_, err := f.emb.EmbedMissing(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if c.name == "other dimension" && !errors.Is(err, storage.ErrConflict) {
			t.Errorf("%s: %v, want a conflict naming the dimensions", c.name, err)
		}
		if n := f.embedded(t); n != before {
			t.Errorf("%s: %d embedded, want %d as before", c.name, n, before)
		}
	}
	if n, err := f.emb.EmbedMissing(context.Background(), nil); err != nil || n != 1 {
		t.Errorf("once the model answers: %d embedded, %v", n, err)
	}
}

// Search: by meaning finds what shares no word with the query; by words
// does not; without a model, by words with a note; a model that fails
// gives words and says so.
func TestSearchByMeaningWordsAndNotes(t *testing.T) {
	f := newEmbedFixture(t, "ollama", "MUSTER-Autovermietung GmbH, Miettage 2", "Taxifahrt vom 29.10.2018", "Beitragsrechnung zur Kraftfahrtversicherung")
	ctx := context.Background()
	if _, err := f.emb.EmbedMissing(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "cab ride"})
	if err != nil || res.By != "both" || res.Model != "ollama/nomic-embed-text" || len(res.Hits) == 0 {
		t.Fatalf("cab ride: %+v %v", res, err)
	}
	if h := res.Hits[0]; h.DocumentName != "doc2.txt" || h.Matched != "meaning" {
		t.Errorf("first hit %+v, want doc2.txt (the taxi ride) by meaning", h)
	}
	words, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "cab ride", By: "words"})
	if err != nil || len(words.Hits) != 0 || words.Note != "" {
		t.Errorf("by words: %+v %v", words, err)
	}
	var off *agent.Embedder
	res, err = off.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt"})
	if err != nil || res.By != "words" || len(res.Hits) != 1 || !strings.Contains(res.Note, "search by meaning is off") {
		t.Errorf("without a model: %+v %v", res, err)
	}
	if _, err := off.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt", By: "meaning"}); err == nil {
		t.Error("by meaning without a model gave no error")
	}
	f.srv.EmbedFaults(modeltest.EmbedFault{Status: 404})
	res, err = f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt"})
	if err != nil || res.By != "words" || len(res.Hits) != 1 || !strings.Contains(res.Note, "search by meaning failed") {
		t.Errorf("model gone: %+v %v", res, err)
	}
	before := len(f.srv.EmbedRequests())
	if _, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: strings.Repeat("Rechnung ", 120_000)}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("a 1 MB query: %v", err)
	}
	if n := len(f.srv.EmbedRequests()); n != before {
		t.Errorf("the 1 MB query reached the model")
	}
}

// Models trained with task prefixes get them: nomic-embed-text its
// search_query/search_document, embeddinggemma its own, on either wire;
// a model of another family gets the text alone.
func TestEmbedderSendsTheModelFamilysTaskPrefixes(t *testing.T) {
	ctx := context.Background()
	gemma := modeltest.EmbedModel
	gemma.Name, gemma.Family = "embeddinggemma:300m", "gemma3"
	bge := modeltest.EmbedModel
	bge.Name, bge.Family = "bge-m3", "bert"
	for _, c := range []struct {
		model, query, doc string
	}{
		{"ollama/nomic-embed-text", "search_query: cab ride", "search_document: Taxifahrt vom 29.10.2018"},
		{"openai/nomic-embed-text", "search_query: cab ride", "search_document: Taxifahrt vom 29.10.2018"},
		{"ollama/embeddinggemma:300m", "task: search result | query: cab ride", "title: none | text: Taxifahrt vom 29.10.2018"},
		{"ollama/bge-m3", "cab ride", "Taxifahrt vom 29.10.2018"},
	} {
		t.Run(c.model, func(t *testing.T) {
			f := newEmbedFixture(t, "ollama", "Taxifahrt vom 29.10.2018")
			f.srv.SetModels(modeltest.DefaultModel, modeltest.EmbedModel, gemma, bge)
			f.emb.Model = c.model
			if _, err := f.emb.EmbedMissing(ctx, nil); err != nil {
				t.Fatal(err)
			}
			res, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "cab ride", By: "meaning"})
			if err != nil || len(res.Hits) != 1 {
				t.Fatalf("search: %+v %v", res, err)
			}
			var sent []string
			for _, r := range f.srv.EmbedRequests() {
				sent = append(sent, r.Inputs...)
			}
			if len(sent) != 2 || sent[0] != c.doc || sent[1] != c.query {
				t.Errorf("the model was sent %q, want the chunk as %q and the query as %q", sent, c.doc, c.query)
			}
		})
	}
}

// A search waits QueryEmbedTimeout for its query's vector from a model
// that hangs, then goes on by words and says why; by meaning alone it
// fails with the same reason. Embedding chunks in the background waits
// the providers' idle timeout (five minutes here), far longer. The
// bubble's clock makes the waits take no real time.
func TestQueryEmbeddingGivesUpAfterItsDeadline(t *testing.T) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := modeltest.NewInMemory(t, modeltest.DefaultModel, modeltest.EmbedModel)
				f := newEmbedFixtureOn(t, srv, 5*time.Minute, wire, "Taxifahrt vom 29.10.2018", "Beitragsrechnung zur Kraftfahrtversicherung")
				ctx := context.Background()

				// The background run waits a minute for a slow model, and
				// embeds.
				f.srv.EmbedFaults(modeltest.EmbedFault{Delay: time.Minute})
				start := time.Now()
				if n, err := f.emb.EmbedMissing(ctx, nil); err != nil || n != 2 {
					t.Fatalf("EmbedMissing from a model that takes a minute: %d chunks, %v; want both after the minute", n, err)
				}
				if took := time.Since(start); took != time.Minute {
					t.Errorf("the background run took %v, want the model's minute", took)
				}

				f.srv.EmbedFaults(modeltest.EmbedFault{Delay: time.Hour}, modeltest.EmbedFault{Delay: time.Hour})
				start = time.Now()
				res, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt"})
				if took := time.Since(start); took != agent.QueryEmbedTimeout {
					t.Errorf("the search waited %v for the hung model, want %v", took, agent.QueryEmbedTimeout)
				}
				if err != nil || res.By != "words" || len(res.Hits) != 1 || !strings.Contains(res.Note, "search by meaning failed") ||
					!strings.Contains(res.Note, "did not answer the query within 5s") {
					t.Errorf("search with a hung model: %+v %v, want the hit by words and a note that says the model did not answer within 5s", res, err)
				}
				start = time.Now()
				_, err = f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt", By: "meaning"})
				if took := time.Since(start); took != agent.QueryEmbedTimeout || err == nil || !strings.Contains(err.Error(), "within 5s") {
					t.Errorf("by meaning with a hung model: %v after %v, want the timeout after %v", err, took, agent.QueryEmbedTimeout)
				}
			})
		})
	}
}

// A server that streams a query's vector without end (here 64 MB) is
// read no further than the vectors of one text can need: the search goes
// on by words and says the answer was too large.
func TestQueryEmbeddingOfAnEndlessAnswerFallsBackToWords(t *testing.T) {
	f := newEmbedFixture(t, "ollama", "Taxifahrt vom 29.10.2018")
	ctx := context.Background()
	f.srv.EmbedFaults(modeltest.EmbedFault{Flood: 64 << 20})
	res, err := f.emb.Search(ctx, f.db, agent.SearchRequest{Query: "Taxifahrt"})
	if err != nil || res.By != "words" || len(res.Hits) != 1 || !strings.Contains(res.Note, "answered more than") {
		t.Errorf("search against an endless answer: %+v %v, want the hit by words and a note that the answer was too large", res, err)
	}
}
