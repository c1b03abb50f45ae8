package e2e

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// germanTaxi is a German corpus invoice for a taxi ride (Taxifahrt,
// Taxiunternehmen); the English query shares no word with it.
const (
	germanTaxi   = "v2_zugferd_2p0_BASIC_Taxifahrt.pdf"
	germanRent   = "v2_zugferd_2p0_EN16931_Miete.pdf"
	englishQuery = "cab ride"
)

// TestBrowserSearchByMeaning is a user who uploads German invoices, sets
// the embedding model in Settings, and types an English query into the
// documents page's search box: the taxi invoice, which has none of its
// words, is among the passages, marked "by meaning".
func TestBrowserSearchByMeaning(t *testing.T) {
	corpus := testcorpus.Dir(t)
	model := modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b", "DOCENT_EMBED_MODEL=")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload two German invoices",
		chromedp.SetUploadFiles(tid("upload-input"), []string{
			filepath.Join(corpus, "zugferd", germanTaxi),
			filepath.Join(corpus, "zugferd", germanRent),
		}),
	)
	waitText(t, ctx, srv, "both rows", tid("doc-list"), germanRent)
	waitText(t, ctx, srv, "both rows", tid("doc-list"), germanTaxi)

	// By words the query finds nothing of the invoice: a test of meaning.
	words := apiGet[struct {
		Hits []struct {
			DocumentName string `json:"document_name"`
		} `json:"hits"`
	}](t, srv, "/api/search?by=words&q="+url.QueryEscape(englishQuery))
	for _, h := range words.Hits {
		if h.DocumentName == germanTaxi {
			t.Fatalf("%q finds %s by words: not a test of meaning", englishQuery, germanTaxi)
		}
	}

	// Settings: the scripted server's embedding model; the uploads are
	// embedded in the background.
	do(t, ctx, srv, "open Settings", chromedp.Click(tid("nav-settings")), chromedp.WaitVisible(tid("settings-embed-model")))
	do(t, ctx, srv, "set the embedding model",
		chromedp.SendKeys(tid("settings-embed-model"), "ollama/"+modeltest.EmbedModel.Name),
		chromedp.Click(tid("settings-save")),
	)
	waitFor(t, ctx, srv, "the chunks embedded", chromedp.Text(tid("settings-embed-progress")),
		func(got string) bool {
			// "N of N text chunks embedded with …", N > 0, nothing left.
			var done, all string
			before, _, ok := strings.Cut(got, " text chunks embedded")
			if ok {
				done, all, ok = strings.Cut(before, " of ")
			}
			return ok && done == all && done != "0" && !strings.Contains(got, "wait")
		},
		func(got string) string { return "Settings reads " + clip(got, 300) + ", want every chunk embedded" })
	shots.shot(ctx, "settings-embedded")

	// The documents page's search box, the English query.
	do(t, ctx, srv, "search by meaning",
		chromedp.Click(tid("nav-documents")),
		chromedp.WaitVisible(tid("doc-search")),
		chromedp.SendKeys(tid("doc-search"), englishQuery),
		chromedp.WaitVisible(tid("search-hits")),
	)
	hit := chromedp.CSS(`[data-testid="search-hit"][data-matched="meaning"]`)
	waitText(t, ctx, srv, "the taxi invoice by meaning", hit, germanTaxi)
	waitText(t, ctx, srv, "marked by meaning", chromedp.CSS(`[data-testid="search-hit"][data-matched="meaning"] [data-testid="search-matched"]`), "by meaning")
	first := get(t, ctx, srv, "the first passage", chromedp.Text(tid("search-hit")))
	if !strings.Contains(first, germanTaxi) || !strings.Contains(first, "by meaning") {
		t.Errorf("the first passage reads %q, want %s marked by meaning", clip(first, 300), germanTaxi)
	}
	heading := get(t, ctx, srv, "the passages' heading", chromedp.Text(tid("search-hits")))
	if !strings.Contains(heading, "ollama/"+modeltest.EmbedModel.Name) {
		t.Errorf("the passages do not name the model that answered: %q", clip(heading, 300))
	}
	shots.shot(ctx, "search-by-meaning")
}
