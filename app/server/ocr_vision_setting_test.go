package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// ocrSettingsView is the answer of GET and PUT /api/settings/ocr.
type ocrSettingsView struct {
	Lang, Saved, Default, Engine string
	VisionModel                  string `json:"vision_model"`
	VisionAll                    bool   `json:"vision_all"`
	VisionError                  string `json:"vision_error"`
}

// TestOCRVisionSetting: the vision model is a setting of GET/PUT
// /api/settings/ocr (saved, kept when only the languages change, refused
// when it cannot read images or is not a model id, turned off with ""),
// and the server's OCR worker reads an uploaded receipt photo (SROIE
// 000.jpg) with the saved model, here on the OpenAI wire of a server that
// refuses max_tokens as OpenAI's reasoning models do.
func TestOCRVisionSetting(t *testing.T) {
	corpus := testcorpus.Dir(t)
	photo, err := os.ReadFile(filepath.Join(corpus, "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCENT_OCR_LANG", "eng")
	vision := modeltest.Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl", RefuseMaxTokens: true}
	models := modeltest.New(t, vision, modeltest.DefaultModel)
	const receipt = "BOOK TA .K (TAMAN DAYA) SDN BHD\nTAMAN DAYA,\n81100 JOHOR BAHRU, JOHOR.\n25/12/2018\nTOTAL 9.00"
	models.Handle(func(r modeltest.Request) modeltest.Reply { return modeltest.Reply{Text: receipt} })
	f := newFixture(t, func(cfg *server.Config) {
		reg := provider.NewRegistry(provider.Config{
			OllamaHost: models.OllamaURL(), OpenAIBaseURL: models.OpenAIURL(), OpenAIKey: "test",
			IdleTimeout: 10 * time.Second, MaxRetries: -1,
		})
		cfg.Agent = &agent.Agent{DB: cfg.DB, Providers: reg, DefaultModel: testModel}
	})

	var got ocrSettingsView
	f.call(http.MethodGet, "/api/settings/ocr", nil, http.StatusOK, &got)
	if got.VisionModel != "" || got.VisionAll || got.VisionError != "" {
		t.Fatalf("before saving: %+v", got)
	}
	msg := f.wantError(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_model": "ollama/qwen3:8b"}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "cannot read images") {
		t.Errorf("a model that cannot see: %q", msg)
	}
	f.wantError(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_model": "qwen2.5vl"}, http.StatusBadRequest, "invalid")
	f.wantError(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_model": "ollama/llava:404"}, http.StatusBadRequest, "invalid")
	f.call(http.MethodGet, "/api/settings/ocr", nil, http.StatusOK, &got)
	if got.VisionModel != "" {
		t.Fatalf("a refused model was saved: %+v", got)
	}

	f.call(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_model": "openai/qwen2.5vl:7b", "vision_all": true}, http.StatusOK, &got)
	if got.VisionModel != "openai/qwen2.5vl:7b" || !got.VisionAll || got.VisionError != "" {
		t.Fatalf("saved the model: %+v", got)
	}
	f.call(http.MethodPut, "/api/settings/ocr", map[string]any{"lang": "eng"}, http.StatusOK, &got)
	if got.Saved != "eng" || got.VisionModel != "openai/qwen2.5vl:7b" || !got.VisionAll {
		t.Fatalf("saving the languages changed the vision model: %+v", got)
	}
	f.call(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_all": false}, http.StatusOK, &got)
	if got.VisionModel != "openai/qwen2.5vl:7b" || got.VisionAll {
		t.Fatalf("vision_all off: %+v", got)
	}

	status, body := f.upload(map[string]string{"receipt.jpg": string(photo)}, nil)
	if status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, body)
	}
	doc := waitReady(t, f.db, "receipt.jpg")
	text, err := f.db.PageText(context.Background(), doc.ID, 1)
	if err != nil || text != receipt {
		t.Fatalf("the receipt's text %q (%v); want what the vision model read", text, err)
	}
	details, err := f.db.PageDetails(context.Background(), doc.ID)
	if err != nil || len(details) != 1 || details[0].Source != storage.SourceVision || details[0].Engine != "openai/qwen2.5vl:7b" {
		t.Fatalf("page details %+v (%v); want read by openai/qwen2.5vl:7b", details, err)
	}
	var images int
	for _, r := range models.Requests() {
		images += len(r.Images)
	}
	if images == 0 {
		t.Errorf("no image reached the model")
	}

	f.call(http.MethodPut, "/api/settings/ocr", map[string]any{"vision_model": ""}, http.StatusOK, &got)
	if got.VisionModel != "" || got.VisionAll || got.Saved != "eng" {
		t.Errorf("turned off: %+v", got)
	}
}

// waitReady polls the store for the document named name until it is
// ready; the deadline guards against a hang only.
func waitReady(t *testing.T, db *storage.DB, name string) storage.Document {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d, err := db.FindDocument(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Status == storage.StatusReady:
			return d
		case d.Status == storage.StatusFailed, time.Now().After(deadline):
			t.Fatalf("%s is %s (%q); want ready, read by the vision model", name, d.Status, d.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
