package e2e

import (
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/app/internal/testcorpus"
)

// TestBrowserFailedDocumentAsksForItsPassword: an encrypted PDF uploaded
// without its password shows one message and a password field instead of
// the viewer and the agent; the password reads it, and the page shows it.
func TestBrowserFailedDocumentAsksForItsPassword(t *testing.T) {
	pdf := filepath.Join(testcorpus.Dir(t), "pypdf-sample-files", "005_libreoffice-writer-password.pdf")
	srv := startServe(t, t.TempDir())
	ctx := newBrowser(t)

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload the locked PDF", chromedp.SetUploadFiles(tid("upload-input"), []string{pdf}))
	waitCount(t, ctx, srv, "the document listed", `[data-testid="doc-row"]`, 1)
	docs := apiGet[struct {
		Documents []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"documents"`
	}](t, srv, "/api/documents")
	if docs.Documents[0].Status != "failed" {
		t.Fatalf("the locked PDF is %s, want failed", docs.Documents[0].Status)
	}
	id := docs.Documents[0].ID
	do(t, ctx, srv, "open it", chromedp.Navigate(srv.URL+"#/documents/"+id), chromedp.WaitVisible(tid("document-failed")))
	waitCount(t, ctx, srv, "no agent for a file that failed", `[data-testid="tab-agent"]`, 0)
	do(t, ctx, srv, "type the wrong password", chromedp.SendKeys(tid("document-password"), "guess"), chromedp.Click(tid("document-password-submit")))
	waitText(t, ctx, srv, "the wrong password is refused", tid("document-failed"), "does not open")
	do(t, ctx, srv, "type its password",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="document-password"]').value = ''`),
		chromedp.SendKeys(tid("document-password"), "openpassword"), chromedp.Click(tid("document-password-submit")))
	do(t, ctx, srv, "the document opens", chromedp.WaitVisible(tid("tab-agent")), chromedp.WaitNotPresent(tid("document-failed")))
}
