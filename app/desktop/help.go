package desktop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// healthVersion asks h, the server behind the window, for its version the
// way the UI does (GET /api/health), so About shows what `docent --version`
// prints. "" when it does not say.
func healthVersion(ctx context.Context, h http.Handler) string {
	if h == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/api/health", nil)
	if err != nil {
		return ""
	}
	rec := &bodyRecorder{header: http.Header{}}
	h.ServeHTTP(rec, req)
	if rec.status != 0 && rec.status != http.StatusOK {
		return ""
	}
	var health struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(rec.body.Bytes(), &health) != nil {
		return ""
	}
	return strings.TrimSpace(health.Version)
}

// bodyRecorder is the least http.ResponseWriter that keeps a response.
type bodyRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *bodyRecorder) Header() http.Header { return r.header }
func (r *bodyRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *bodyRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// describeVersion is the version line of About: version (Options.Version,
// else the server's), else the module version Go stamped in the binary;
// then the commit it was built from and the Go release, when the binary
// knows them (bi may be nil).
func describeVersion(version string, bi *debug.BuildInfo) string {
	version = strings.TrimSpace(version)
	fromModule := false
	if version == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version, fromModule = bi.Main.Version, true
	}
	if version == "" {
		version = "unknown"
	}
	var details []string
	if bi != nil {
		var revision string
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if revision != "" && !fromModule { // a module version names its commit already
			c := "commit " + revision[:min(len(revision), 12)]
			if modified {
				c += " with local changes"
			}
			details = append(details, c)
		}
		if bi.GoVersion != "" {
			details = append(details, "built with "+bi.GoVersion)
		}
	}
	if len(details) == 0 {
		return "Version " + version
	}
	return "Version " + version + " (" + strings.Join(details, ", ") + ")"
}

// aboutText is what Help > About Docent says.
func aboutText(versionLine, dataDir string) string {
	var b strings.Builder
	b.WriteString(versionLine)
	b.WriteString("\n\nStructured data from your documents, on your own machine: an agent beside each document proposes a schema and a prompt and extracts the data, asking before it changes anything.\n\nData folder:\n")
	if dataDir == "" {
		b.WriteString("(none)")
	} else {
		b.WriteString(dataDir)
	}
	return b.String()
}

// readmeCandidates are where a README.md that came with the binary at exe
// would be: beside it (a binary built at the top of a clone with `go build
// .`), and one folder up (bin/docent, as scripts/run builds it).
func readmeCandidates(exe string) []string {
	dir := filepath.Dir(exe)
	return []string{
		filepath.Join(dir, "README.md"),
		filepath.Join(filepath.Dir(dir), "README.md"),
	}
}

// findREADME returns the first of readmeCandidates(exe) that is Docent's
// README (its title is "# Docent", so another project's README one folder
// up is not taken for it), or "".
func findREADME(exe string) string {
	for _, p := range readmeCandidates(exe) {
		if isDocentREADME(p) {
			return p
		}
	}
	return ""
}

func isDocentREADME(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		return line == "# Docent"
	}
	return false
}

// readmeMissingText is what Help > Docent README says when no README came
// with the binary: where it looked, where the README is, and the gist.
func readmeMissingText(looked []string) string {
	return "Docent's README was not found beside this program (looked for " +
		strings.Join(looked, " and ") + ").\n\n" +
		"It is README.md at the top of Docent's source folder.\n\n" +
		"In short: import documents with File > Import… or by dropping files on the window. " +
		"Open one to read it beside the agent, which proposes a schema and a prompt and extracts the data, " +
		"asking before it changes anything. Models and the API key are set on the Settings page.\n\n" +
		"For the command line, run: docent --help"
}

// openFailedText is what a dialog says when the system could not open
// path (what names it: "data folder", "README").
func openFailedText(what, path string, err error) string {
	return fmt.Sprintf("Docent asked the system to open the %s, and it could not (%v).\n\nIt is at:\n%s", what, err, path)
}

// fileURL is the file:// URL of an absolute path, on Windows too
// (C:\Users\… becomes file:///C:/Users/…).
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dialogMessage makes text safe for a Wails message dialog on goos: on
// Linux Wails hands the message to GTK as a printf format, where a % (in a
// folder's name, say) would be read as a directive.
func dialogMessage(goos, text string) string {
	if goos == "linux" {
		return strings.ReplaceAll(text, "%", "%%")
	}
	return text
}
