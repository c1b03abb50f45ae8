package desktop

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestHealthVersion(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/health" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true,"version":"1.2.3"}`))
	})
	if got := healthVersion(context.Background(), ok); got != "1.2.3" {
		t.Errorf("healthVersion = %q, want 1.2.3", got)
	}
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"version":"9.9.9","error":{"code":"unavailable"}}`))
	})
	for name, h := range map[string]http.Handler{
		"nil":       nil,
		"failing":   failing,
		"not JSON":  http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }),
		"not found": http.NotFoundHandler(),
	} {
		if got := healthVersion(context.Background(), h); got != "" {
			t.Errorf("%s: healthVersion = %q, want \"\"", name, got)
		}
	}
}

func TestDescribeVersion(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/docent/docent", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "8101203abcdef0123456789"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Version: "v0.0.0-20250101000000-8101203abcde+dirty"},
		Settings:  []debug.BuildSetting{{Key: "vcs.revision", Value: "8101203abcdef0123456789"}},
	}
	for _, tt := range []struct {
		version string
		bi      *debug.BuildInfo
		want    string
	}{
		{"0.1.0-dev", vcs, "Version 0.1.0-dev (commit 8101203abcde with local changes, built with go1.26.0)"},
		{"0.1.0-dev", nil, "Version 0.1.0-dev"},
		{" 1.0.0\n", &debug.BuildInfo{GoVersion: "go1.26.0"}, "Version 1.0.0 (built with go1.26.0)"},
		{"", stamped, "Version v0.0.0-20250101000000-8101203abcde+dirty (built with go1.26.0)"},
		{"", vcs, "Version unknown (commit 8101203abcde with local changes, built with go1.26.0)"},
		{"", nil, "Version unknown"},
	} {
		if got := describeVersion(tt.version, tt.bi); got != tt.want {
			t.Errorf("describeVersion(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}

func TestAboutText(t *testing.T) {
	got := aboutText("Version 1.2.3", "/home/ann/.local/share/docent")
	for _, want := range []string{"Version 1.2.3", "Data folder:\n/home/ann/.local/share/docent"} {
		if !strings.Contains(got, want) {
			t.Errorf("about text lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "Version 1.2.3\n") {
		t.Errorf("the version is not the first line:\n%s", got)
	}
	if got := aboutText("Version 1", ""); !strings.Contains(got, "Data folder:\n(none)") {
		t.Errorf("without a data folder:\n%s", got)
	}
}

func TestFindREADME(t *testing.T) {
	root := t.TempDir()
	docent := "\n# Docent\n\nDocent turns a pile of documents…\n"
	other := "# Something else\n"
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// bin/docent in a clone, as scripts/run builds it.
	clone := filepath.Join(root, "clone")
	write(filepath.Join(clone, "README.md"), docent)
	if got, want := findREADME(filepath.Join(clone, "bin", "docent")), filepath.Join(clone, "README.md"); got != want {
		t.Errorf("bin/docent: %q, want %q", got, want)
	}
	// ./docent at the top of the clone.
	if got, want := findREADME(filepath.Join(clone, "docent")), filepath.Join(clone, "README.md"); got != want {
		t.Errorf("./docent: %q, want %q", got, want)
	}
	// Beside the binary wins over one folder up.
	write(filepath.Join(clone, "bin", "README.md"), docent)
	if got, want := findREADME(filepath.Join(clone, "bin", "docent")), filepath.Join(clone, "bin", "README.md"); got != want {
		t.Errorf("beside: %q, want %q", got, want)
	}
	// ~/bin/docent with the user's own ~/README.md: not Docent's.
	home := filepath.Join(root, "home")
	write(filepath.Join(home, "README.md"), other)
	if got := findREADME(filepath.Join(home, "bin", "docent")); got != "" {
		t.Errorf("another README was taken for Docent's: %q", got)
	}
	// An empty README, and none at all.
	write(filepath.Join(root, "empty", "README.md"), "\n\n")
	if got := findREADME(filepath.Join(root, "empty", "docent")); got != "" {
		t.Errorf("an empty README: %q", got)
	}
	if got := findREADME(filepath.Join(root, "nowhere", "bin", "docent")); got != "" {
		t.Errorf("no README: %q", got)
	}
}

// The repository's own README is the one findREADME looks for.
func TestRepositoryREADMEIsFound(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..")
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		t.Skipf("no README.md at the repository's top: %v", err)
	}
	if got := findREADME(filepath.Join(root, "bin", "docent")); got != filepath.Join(root, "README.md") {
		t.Errorf("findREADME(bin/docent) = %q: the README's title is no longer \"# Docent\"?", got)
	}
}

func TestREADMEMissingText(t *testing.T) {
	got := readmeMissingText(readmeCandidates("/opt/docent/bin/docent"))
	for _, want := range []string{"/opt/docent/bin/README.md", "/opt/docent/README.md", "README.md at the top of Docent's source folder", "run: docent --help"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

func TestFileURL(t *testing.T) {
	for in, want := range map[string]string{
		"/home/ann/.local/share/docent": "file:///home/ann/.local/share/docent",
		"/data/with space/100%":         "file:///data/with%20space/100%25",
	} {
		if got := fileURL(in); got != want {
			t.Errorf("fileURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDialogMessage(t *testing.T) {
	text := "Data folder:\n/home/ann/100% docs/%s"
	if got, want := dialogMessage("linux", text), "Data folder:\n/home/ann/100%% docs/%%s"; got != want {
		t.Errorf("linux: %q, want %q", got, want)
	}
	for _, goos := range []string{"darwin", "windows"} {
		if got := dialogMessage(goos, text); got != text {
			t.Errorf("%s: %q, want it unchanged", goos, got)
		}
	}
}

func TestOpenFailedText(t *testing.T) {
	got := openFailedText("data folder", "/home/ann/docent", errors.New("xdg-open: exit status 4"))
	for _, want := range []string{"open the data folder", "xdg-open: exit status 4", "It is at:\n/home/ann/docent"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}
