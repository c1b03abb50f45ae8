package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage/fault"
)

// These tests parse argument lists into a command's options, as the
// command does before it runs, and assert the options, or the usage error
// for flags that are wrong: no data directory, no store, no process.

// parseCase is one argument list and what parsing it gives: want, or an
// error whose message holds every part of wantErr.
type parseCase[O any] struct {
	args    []string
	want    O
	wantErr []string
}

func checkParse[O any](t *testing.T, parse func([]string) (O, error), cases []parseCase[O]) {
	t.Helper()
	for _, c := range cases {
		got, err := parse(c.args)
		if c.wantErr != nil {
			if err == nil {
				t.Errorf("%q: parsed into %+v, want an error", c.args, got)
				continue
			}
			if code := fault.ErrorCode(err); code != codeUsage {
				t.Errorf("%q: error code %q, want %q: %v", c.args, code, codeUsage, err)
			}
			for _, part := range c.wantErr {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("%q: error %q does not say %q", c.args, err, part)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.args, got, c.want)
		}
	}
}

func TestParseExport(t *testing.T) {
	checkParse(t, parseExport, []parseCase[exportOptions]{
		{args: []string{"--schema", "Invoice"}, want: exportOptions{Schema: "Invoice", Format: "csv"}},
		{args: []string{"--schema", "Invoice", "--prompt", "p", "--tag", "a", "--tag", "b", "--out", "rows.xlsx"},
			want: exportOptions{Schema: "Invoice", Prompt: "p", Tags: []string{"a", "b"}, Format: "xlsx", Out: "rows.xlsx"}},
		// The format comes from --out's extension, unless --format names it.
		{args: []string{"--prompt", "p", "--out", "rows.ndjson"}, want: exportOptions{Prompt: "p", Format: "jsonl", Out: "rows.ndjson"}},
		{args: []string{"--prompt", "p", "--out", "rows.JSON"}, want: exportOptions{Prompt: "p", Format: "json", Out: "rows.JSON"}},
		{args: []string{"--prompt", "p", "--out", "rows.txt"}, want: exportOptions{Prompt: "p", Format: "csv", Out: "rows.txt"}},
		{args: []string{"--prompt", "p", "--format", "JSONL", "--out", "rows.csv", "--explode", "items", "--raw", "--evidence"},
			want: exportOptions{Prompt: "p", Format: "jsonl", Out: "rows.csv", Explode: "items", Raw: true, Evidence: true}},

		{args: nil, wantErr: []string{"export needs --schema or --prompt", "usage: docent export"}},
		{args: []string{"--prompt", "p", "extra"}, wantErr: []string{"export needs --schema or --prompt and nothing else"}},
		{args: []string{"--prompt", "p", "--format", "xls"}, wantErr: []string{"--format must be csv, json, jsonl or xlsx"}},
		{args: []string{"--prompt", "p", "--bogus"}, wantErr: []string{"export: flag provided but not defined: -bogus", "usage: docent export"}},
	})
}

func TestParseOCR(t *testing.T) {
	t.Setenv("DOCENT_OCR_LANG", "fra")
	checkParse(t, parseOCR, []parseCase[ocrOptions]{
		// Without --lang, DOCENT_OCR_LANG.
		{args: []string{"--all"}, want: ocrOptions{All: true, Lang: "fra"}},
		{args: []string{"a.pdf", "b.png", "--lang", "deu+eng", "--json"}, want: ocrOptions{Refs: []string{"a.pdf", "b.png"}, Lang: "deu+eng", JSON: true}},
		{args: []string{"--all", "--vision", " ollama/qwen2.5vl:7b ", "--vision-all", "--vision-timeout", "30s"},
			want: ocrOptions{All: true, Lang: "fra", Vision: "ollama/qwen2.5vl:7b", VisionAll: true, VisionTimeout: 30 * time.Second}},
		// --vision-all and --vision-timeout without --vision pass here: a
		// vision model saved in Settings may take them, which the run reads.
		{args: []string{"--all", "--vision-all", "--vision-timeout", "1m"}, want: ocrOptions{All: true, Lang: "fra", VisionAll: true, VisionTimeout: time.Minute}},

		{args: nil, wantErr: []string{"ocr needs documents or --all, not both", "usage: docent ocr"}},
		{args: []string{"a.pdf", "--all"}, wantErr: []string{"ocr needs documents or --all, not both"}},
		{args: []string{"--all", "--vision-timeout", "0s"}, wantErr: []string{"--vision-timeout 0s: want a positive duration"}},
		{args: []string{"--all", "--lang", "no such"}, wantErr: []string{"--lang: OCR languages"}},
		{args: []string{"--all", "--vision", "qwen2.5vl"}, wantErr: []string{"--vision: "}},
		{args: []string{"--all", "--vision-timeout", "soon"}, wantErr: []string{"ocr: invalid value", "usage: docent ocr"}},
	})
}

func TestParseAutoCreate(t *testing.T) {
	checkParse(t, parseAutoCreate, []parseCase[autoCreateOptions]{
		{args: []string{"--all"}, want: autoCreateOptions{All: true, Timeout: agent.DefaultAutoCreateTimeout}},
		{args: []string{"a.pdf", "folder", "--tag", "x", "--tag", "y", "--shared", "--json"},
			want: autoCreateOptions{Paths: []string{"a.pdf", "folder"}, Tags: []string{"x", "y"}, Shared: true, JSON: true, Timeout: agent.DefaultAutoCreateTimeout}},
		{args: []string{"--all", "--concurrency", "3", "--timeout", "5m", "--stale-after", "1s", "--schema", "Invoice"},
			want: autoCreateOptions{All: true, Concurrency: 3, Timeout: 5 * time.Minute, StaleAfter: time.Second, Schema: "Invoice"}},

		{args: nil, wantErr: []string{"auto-create needs files or folders, or --all", "usage: docent auto-create"}},
		{args: []string{"a.pdf", "--all"}, wantErr: []string{"auto-create needs files or folders, or --all"}},
		{args: []string{"--all", "--concurrency", "-1"}, wantErr: []string{"--concurrency must be at least 1"}},
		{args: []string{"--all", "--timeout", "0s"}, wantErr: []string{"--timeout must be positive"}},
		{args: []string{"--all", "--shared", "--schema", "Invoice"}, wantErr: []string{"--shared and --schema exclude each other"}},
		{args: []string{"--all", "--concurrency", "many"}, wantErr: []string{"auto-create: invalid value", "usage: docent auto-create"}},
	})
}

func TestParseRoot(t *testing.T) {
	serveDefaults := serveOptions{Listen: defaultListen, MaxUploadMiB: defaultMaxUploadMiB}
	withServe := func(edit func(*serveOptions)) serveOptions {
		o := serveDefaults
		edit(&o)
		return o
	}
	inbox := t.TempDir()
	notThere := filepath.Join(inbox, "not-there")
	checkParse(t, parseRoot, []parseCase[rootOptions]{
		{args: nil, want: rootOptions{Serve: serveDefaults}},
		{args: []string{"--serve"}, want: rootOptions{Serving: true, Serve: serveDefaults}},
		{args: []string{"--serve", "--listen", "0.0.0.0:9000", "--max-upload", "5", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--inbox", inbox},
			want: rootOptions{Serving: true, Serve: serveOptions{Listen: "0.0.0.0:9000", MaxUploadMiB: 5, TLSCert: "c.pem", TLSKey: "k.pem", Inbox: inbox}}},
		{args: []string{"--serve", "--listen", "192.168.1.2:8765", "--insecure-http"},
			want: rootOptions{Serving: true, Serve: withServe(func(o *serveOptions) { o.Listen, o.InsecureHTTP = "192.168.1.2:8765", true })}},
		// The command's own flags are left to it.
		{args: []string{"import", "--tag", "x", "a.pdf"}, want: rootOptions{Serve: serveDefaults, Command: []string{"import", "--tag", "x", "a.pdf"}}},
		{args: []string{"--version"}, want: rootOptions{Version: true, Serve: serveDefaults}},
		{args: []string{"-h"}, want: rootOptions{Help: true, Serve: serveDefaults}},

		{args: []string{"--listen", "127.0.0.1:0"}, wantErr: []string{"--listen, --max-upload, --tls-cert, --tls-key, --insecure-http and --inbox go with --serve"}},
		{args: []string{"--insecure-http"}, wantErr: []string{"go with --serve"}},
		{args: []string{"--serve", "--max-upload", "0"}, wantErr: []string{"--max-upload must be a positive number of MiB"}},
		{args: []string{"--serve", "--tls-cert", "c.pem"}, wantErr: []string{"--tls-cert and --tls-key go together"}},
		{args: []string{"--serve", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--insecure-http"}, wantErr: []string{"--insecure-http and --tls-cert contradict each other"}},
		{args: []string{"--serve", "--inbox", notThere}, wantErr: []string{"--inbox: folder " + notThere + " does not exist"}},
		{args: []string{"--frobnicate"}, wantErr: []string{"flag provided but not defined: -frobnicate"}},
	})
}

func TestParseImport(t *testing.T) {
	t.Setenv("DOCENT_OCR_LANG", "fra")
	checkParse(t, parseImport, []parseCase[importOptions]{
		// Without --lang, Lang stays empty: the run takes the Settings
		// page's languages.
		{args: []string{"a.pdf"}, want: importOptions{Paths: []string{"a.pdf"}}},
		{args: []string{"a.pdf", "folder", "--tag", "x", "--tag", "y", "--password", "pw", "--auto-create", "--no-ocr", "--no-embed", "--lang", "deu+eng", "--json"},
			want: importOptions{Paths: []string{"a.pdf", "folder"}, Tags: []string{"x", "y"}, Password: "pw", AutoCreate: true, NoOCR: true, NoEmbed: true, Lang: "deu+eng", JSON: true}},

		{args: nil, wantErr: []string{"import needs at least one file or folder", "usage: docent import"}},
		{args: []string{"a.pdf", "--lang", "no such"}, wantErr: []string{"--lang: OCR languages"}},
		{args: []string{"a.pdf", "--ocr"}, wantErr: []string{"import: flag provided but not defined: -ocr"}},
	})
	// A DOCENT_OCR_LANG that is no language list is refused, as --lang is.
	t.Setenv("DOCENT_OCR_LANG", "no such")
	checkParse(t, parseImport, []parseCase[importOptions]{
		{args: []string{"a.pdf"}, wantErr: []string{"--lang: OCR languages"}},
	})
}

func TestParseExtract(t *testing.T) {
	checkParse(t, parseExtract, []parseCase[extractOptions]{
		{args: []string{"--prompt", "Invoice fields", "a.pdf", "b.pdf", "--json"}, want: extractOptions{Prompt: "Invoice fields", Docs: []string{"a.pdf", "b.pdf"}, JSON: true}},

		{args: []string{"a.pdf"}, wantErr: []string{"extract needs --prompt and at least one document", "usage: docent extract"}},
		{args: []string{"--prompt", "p"}, wantErr: []string{"extract needs --prompt and at least one document"}},
		{args: []string{"--prompt", "p", "a.pdf", "--model-id", "m"}, wantErr: []string{"extract: flag provided but not defined: -model-id"}},
	})
}

func TestParseInbox(t *testing.T) {
	checkParse(t, parseInbox, []parseCase[inboxOptions]{
		{args: []string{"in"}, want: inboxOptions{Folder: "in"}},
		{args: []string{"--once", "in", "--json"}, want: inboxOptions{Folder: "in", Once: true, JSON: true}},

		{args: nil, wantErr: []string{"inbox needs one folder", "usage: docent inbox"}},
		{args: []string{"in", "out"}, wantErr: []string{"inbox needs one folder"}},
	})
}

// TestBadFlagsTouchNothing: a command refused for its flags has not opened
// the store; its data directory is not even made.
func TestBadFlagsTouchNothing(t *testing.T) {
	for _, args := range [][]string{
		{"export", "--prompt", "p", "--format", "xls"},
		{"ocr", "--all", "--vision-timeout", "0s"},
		{"auto-create", "--all", "--shared", "--schema", "Invoice"},
		{"import", "a.pdf", "--lang", "no such"},
		{"extract", "--prompt", "p"},
		{"inbox", "in", "out"},
		{"--serve", "--listen", "127.0.0.1:0", "--max-upload", "0"},
		{"--serve", "--listen", "127.0.0.1:0", "--inbox", filepath.Join(t.TempDir(), "not-there")},
	} {
		data := filepath.Join(t.TempDir(), "data")
		code, out, errOut := docent(t, data, args...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, "docent: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, nothing on stdout and the message on stderr", args, code, out, errOut, ExitUsage)
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("%q: the data directory is there (%v): the command ran", args, err)
		}
	}
}
