package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// An encrypted PDF uploaded without its password fails; the document page
// sends the password, and the same document is read: a wrong password is
// refused with a message and changes nothing, the right one makes it ready.
func TestFailedPDFIsReadAgainWithItsPassword(t *testing.T) {
	pdf, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "pypdf-sample-files", "005_libreoffice-writer-password.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	status, body := f.upload(map[string]string{"locked.pdf": string(pdf)}, nil)
	if status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, body)
	}
	var up struct{ Documents []storage.Document }
	if err := json.Unmarshal(body, &up); err != nil || len(up.Documents) != 1 {
		t.Fatalf("upload answer %s: %v", body, err)
	}
	doc := up.Documents[0]
	if doc.Status != storage.StatusFailed || doc.ErrorCode != storage.ErrorCodePasswordRequired {
		t.Fatalf("an encrypted PDF without its password is %s (%s, code %q), want failed with code %s", doc.Status, doc.Error, doc.ErrorCode, storage.ErrorCodePasswordRequired)
	}
	f.wantError(http.MethodPost, "/api/documents/"+doc.ID+"/password", map[string]string{"password": "guess"}, http.StatusBadRequest, "invalid")
	var again storage.Document
	f.call(http.MethodGet, "/api/documents/"+doc.ID, nil, http.StatusOK, &again)
	if again.Status != storage.StatusFailed || again.ErrorCode != storage.ErrorCodePasswordRequired {
		t.Errorf("after a wrong password the document is %s (code %q), want failed, still for its password", again.Status, again.ErrorCode)
	}
	var read storage.Document
	f.call(http.MethodPost, "/api/documents/"+doc.ID+"/password", map[string]string{"password": "openpassword"}, http.StatusOK, &read)
	if read.ID != doc.ID || read.Status != storage.StatusReady || read.Pages != 1 || read.ErrorCode != "" {
		t.Errorf("read with its password: %+v, want the same document ready with 1 page", read)
	}
	// A document that did not fail is not read again.
	f.wantError(http.MethodPost, "/api/documents/"+doc.ID+"/password", map[string]string{"password": "openpassword"}, http.StatusConflict, "conflict")
}
