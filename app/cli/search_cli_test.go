package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

const embedModel = "ollama/nomic-embed-text"

// germanInvoices are corpus invoices in German (ZUGFeRD samples): the
// four the English queries are about, and others around them.
var germanInvoices = []string{
	"v2_zugferd_2p0_BASIC_Taxifahrt.pdf",
	"v2_zugferd_2p0_EN16931_Miete.pdf",
	"v2_zugferd_2p0_EN16931_Kraftfahrversicherung_Bruttopreise.pdf",
	"v2_zugferd_2p0_EN16931_Reisekostenabrechnung.pdf",
	"v2_zugferd_2p0_EN16931_Einfach.pdf",
	"v2_zugferd_2p0_EN16931_Haftpflichtversicherung_Versicherungssteuer.pdf",
	"v2_zugferd_2p0_EN16931_Physiotherapeut.pdf",
	"v2_zugferd_2p0_EN16931_Betriebskostenabrechnung.pdf",
	"v2_zugferd_2p0_EN16931_OEPNV.pdf",
}

// meaningQueries are English queries and the German invoice each is about,
// with which it shares no word.
var meaningQueries = []struct{ query, doc string }{
	{"cab ride", "v2_zugferd_2p0_BASIC_Taxifahrt.pdf"},
	{"car hire", "v2_zugferd_2p0_EN16931_Miete.pdf"},
	{"car insurance", "v2_zugferd_2p0_EN16931_Kraftfahrversicherung_Bruttopreise.pdf"},
	{"travel expenses", "v2_zugferd_2p0_EN16931_Reisekostenabrechnung.pdf"},
}

type searchJSON struct {
	Hits  []storage.SearchHit `json:"hits"`
	By    string              `json:"by"`
	Model string              `json:"model"`
	Note  string              `json:"note"`
}

// searchFixture imports the German invoices with the scripted embedding
// model set, as a user with `ollama pull nomic-embed-text` would.
func searchFixture(t *testing.T) (data string, srv *modeltest.Server) {
	t.Helper()
	corpus := testcorpus.Dir(t)
	srv = modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	t.Setenv("DOCENT_EMBED_MODEL", embedModel)
	data = t.TempDir()
	args := []string{"import", "--no-ocr"}
	for _, f := range germanInvoices {
		args = append(args, filepath.Join(corpus, "zugferd", f))
	}
	code, out, errOut := docent(t, data, args...)
	if code != ExitOK || !strings.Contains(errOut, "chunks with "+embedModel) {
		t.Fatalf("import: exit %d, want it to embed the chunks before it exits\n%s\n%s", code, out, errOut)
	}
	return data, srv
}

func search(t *testing.T, data string, args ...string) searchJSON {
	t.Helper()
	code, out, errOut := docent(t, data, append([]string{"search", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("docent search %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	var res searchJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("docent search --json: %v\n%s", err, out)
	}
	return res
}

func hitDocs(hits []storage.SearchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.DocumentName)
	}
	return out
}

// English queries find the German invoices they are about, which share
// no word with them, in the top 3 by meaning; the same queries by words
// do not find them.
func TestSearchByMeaningFindsGermanInvoicesForEnglishQueries(t *testing.T) {
	data, _ := searchFixture(t)
	for _, q := range meaningQueries {
		t.Run(q.query, func(t *testing.T) {
			// No word of the query is in the invoice.
			for _, w := range strings.Fields(q.query) {
				if res := search(t, data, w, "--by", "words", "--limit", "100"); slices.Contains(hitDocs(res.Hits), q.doc) {
					t.Fatalf("%s has the word %q: not a test of meaning", q.doc, w)
				}
			}
			res := search(t, data, q.query)
			if res.By != "both" || res.Model != embedModel || res.Note != "" {
				t.Errorf("search by %q with %q, note %q; want both with %s", res.By, res.Model, res.Note, embedModel)
			}
			top := hitDocs(res.Hits[:min(3, len(res.Hits))])
			if !slices.Contains(top, q.doc) {
				t.Errorf("top 3 for %q: %v, want %s among them", q.query, top, q.doc)
			}
			for _, h := range res.Hits {
				if h.DocumentName == q.doc && h.Matched != "meaning" {
					t.Errorf("hit %+v matched %q, want meaning", h, h.Matched)
				}
			}
			words := search(t, data, q.query, "--by", "words")
			if words.By != "words" || slices.Contains(hitDocs(words.Hits), q.doc) {
				t.Errorf("by words: %v (by %s), want no %s", hitDocs(words.Hits), words.By, q.doc)
			}
		})
	}
}

// Fusing by rank keeps what words find: a query of a word the invoice
// has puts that invoice first by both, as by words.
func TestSearchByBothKeepsTheHitsByWords(t *testing.T) {
	data, _ := searchFixture(t)
	for _, q := range []struct{ query, doc string }{
		{"Taxiunternehmen", "v2_zugferd_2p0_BASIC_Taxifahrt.pdf"},
		{"Autovermietung", "v2_zugferd_2p0_EN16931_Miete.pdf"},
		{"Kraftfahrtversicherung", "v2_zugferd_2p0_EN16931_Kraftfahrversicherung_Bruttopreise.pdf"},
	} {
		words := search(t, data, q.query, "--by", "words")
		both := search(t, data, q.query)
		if len(words.Hits) == 0 || words.Hits[0].DocumentName != q.doc || len(both.Hits) == 0 || both.Hits[0].DocumentName != q.doc {
			t.Errorf("%q: by words %v, by both %v; want %s first in both", q.query, hitDocs(words.Hits), hitDocs(both.Hits), q.doc)
		} else if both.Hits[0].Matched != "both" {
			t.Errorf("%q: the first hit matched %q, want both", q.query, both.Hits[0].Matched)
		}
	}
}

// The agent's search_docs, GET /api/search (what the documents page's
// search box asks) and `docent search --json` return the same hits.
func TestSearchGivesTheSameHitsEverywhere(t *testing.T) {
	data, _ := searchFixture(t)
	ctx := context.Background()
	root := &app.Root{DataDir: data, EmbedModel: embedModel}
	t.Cleanup(func() { root.Close() })
	cfg, err := root.ServerConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(cfg))
	t.Cleanup(ts.Close)
	live, err := root.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"car hire", "Rechnung Gesamtbetrag", "Taxifahrt"} {
		cli := search(t, data, q, "--limit", "10")

		res, err := http.Get(ts.URL + "/api/search?limit=10&q=" + url.QueryEscape(q))
		if err != nil {
			t.Fatal(err)
		}
		var api searchJSON
		err = json.NewDecoder(res.Body).Decode(&api)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/search: %d %v", res.StatusCode, err)
		}

		args, _ := json.Marshal(map[string]any{"query": q, "limit": 10})
		a := live.Agent()
		tr := agent.CallTool(ctx, &agent.ToolEnv{DB: cfg.DB, Embedder: a.Embedder}, "search_docs", args)
		var tool searchJSON
		if err := json.Unmarshal(tr.Result, &tool); err != nil || !tr.Success {
			t.Fatalf("search_docs: %s %v", tr.Error, err)
		}
		if len(cli.Hits) == 0 {
			t.Fatalf("%q: no hits", q)
		}
		if !reflect.DeepEqual(cli, api) || !reflect.DeepEqual(cli, tool) {
			t.Errorf("%q:\n cli  %v %+v\n api  %v %+v\n tool %v %+v", q, hitDocs(cli.Hits), cli, hitDocs(api.Hits), api, hitDocs(tool.Hits), tool)
		}
	}
}

// Without an embedding model, search is by words, as before, with a note
// saying search by meaning is off; `docent import --no-embed` leaves the
// chunks for the search, which embeds them first.
func TestSearchWithoutModelAndAfterNoEmbed(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	t.Setenv("DOCENT_EMBED_MODEL", "")
	data := t.TempDir()
	file := filepath.Join(corpus, "zugferd", germanInvoices[0])
	if code, _, errOut := docent(t, data, "import", "--no-ocr", file); code != ExitOK || strings.Contains(errOut, "embedd") {
		t.Fatalf("import without a model: %d %s", code, errOut)
	}
	code, out, errOut := docent(t, data, "search", "Taxifahrt")
	if code != ExitOK || !strings.Contains(out, "by words") || !strings.Contains(errOut, "search by meaning is off") || !strings.Contains(errOut, "ollama pull nomic-embed-text") {
		t.Errorf("without a model: %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := docent(t, data, "search", "Taxifahrt", "--by", "meaning"); code != ExitFailure || !strings.Contains(errOut, "search by meaning is off") {
		t.Errorf("by meaning without a model: %d %s", code, errOut)
	}
	if len(srv.EmbedRequests()) != 0 {
		t.Fatalf("the model was asked to embed without being set")
	}

	t.Setenv("DOCENT_EMBED_MODEL", embedModel)
	file2 := filepath.Join(corpus, "zugferd", germanInvoices[1])
	if code, _, errOut := docent(t, data, "import", "--no-ocr", "--no-embed", file2); code != ExitOK || len(srv.EmbedRequests()) != 0 {
		t.Fatalf("import --no-embed: %d %s; %d embedding requests", code, errOut, len(srv.EmbedRequests()))
	}
	// The model is not there at first (the server answers 404 for it):
	// the search is by words, with a note, and the chunks wait.
	srv.EmbedFaults(modeltest.EmbedFault{Status: 404}, modeltest.EmbedFault{Status: 404})
	code, out, errOut = docent(t, data, "search", "cab ride", "--json")
	var res searchJSON
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.By != "words" || !strings.Contains(res.Note, "ollama pull nomic-embed-text") ||
		!strings.Contains(errOut, "wait to be embedded") {
		t.Errorf("model not pulled: %d %+v\n%s", code, res, errOut)
	}
	res = search(t, data, "cab ride")
	if res.By != "both" || len(res.Hits) == 0 || res.Hits[0].DocumentName != germanInvoices[0] {
		t.Errorf("once the model answers: %+v", res)
	}
}

// Bad input: a query of 1 MB, an unknown --by, no query.
func TestSearchBadInput(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"search", strings.Repeat("Rechnung ", 120_000)},
		{"search", "x", "--by", "sound"},
		{"search"},
		{"search", "x", "--limit", "0"},
	} {
		code, _, errOut := docent(t, data, args...)
		if code == ExitOK || !strings.HasPrefix(errOut, "docent: ") || len(errOut) > 400 {
			t.Errorf("docent %.40s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}

// A model that hangs keeps docent search waiting for the query's deadline
// (agent.QueryEmbedTimeout, 5 s), not for the idle timeout of a batch of
// chunks: the chunks left wait, and the search is by words with a note
// that says the model did not answer the query in time.
func TestSearchWithAHungModelGoesOnByWords(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	t.Setenv("DOCENT_EMBED_MODEL", embedModel)
	t.Setenv("DOCENT_IDLE_TIMEOUT", "30s") // the batch's wait, which the search must not take
	data := t.TempDir()
	file := filepath.Join(corpus, "zugferd", germanInvoices[0])
	if code, _, errOut := docent(t, data, "import", "--no-ocr", "--no-embed", file); code != ExitOK {
		t.Fatalf("import --no-embed: %d %s", code, errOut)
	}
	srv.EmbedFaults(modeltest.EmbedFault{Delay: time.Hour}, modeltest.EmbedFault{Delay: time.Hour}, modeltest.EmbedFault{Delay: time.Hour})
	code, out, errOut := docent(t, data, "search", "Taxifahrt")
	if code != ExitOK || !strings.Contains(out, "by words") || !strings.Contains(errOut, "wait to be embedded") ||
		!strings.Contains(errOut, "did not answer the query within 5s") || strings.Contains(errOut, "DOCENT_IDLE_TIMEOUT") {
		t.Errorf("search with a hung model: exit %d, want hits by words and notes that the model did not answer the query within 5s\n%s\n%s", code, out, errOut)
	}
}
