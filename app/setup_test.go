package app

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// hintOf runs the check --serve and the desktop make at start, on a data
// directory of the test's own, and returns what it printed.
func hintOf(t *testing.T, model string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{
		IO:      &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut},
		DataDir: t.TempDir(), Model: model,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	t.Cleanup(func() { env.Close() })
	live, err := env.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	printFirstRunHint(context.Background(), env, live)
	if out.Len() != 0 {
		t.Errorf("stdout %q: the hint goes to stderr", out.String())
	}
	return errOut.String()
}

func TestSetupHintAtStart(t *testing.T) {
	srv := modeltest.New(t)
	srv.SetModels()
	modelsEnv(t, srv)

	// Nothing pulled: one line, with the command.
	want := "No model yet: Ollama at " + srv.OllamaURL() + " has no models pulled: run `ollama pull qwen3:8b`, then choose it in Settings\n"
	if got := hintOf(t, ""); got != want {
		t.Errorf("nothing pulled: %q, want %q", got, want)
	}

	// Pulled, not chosen: which one to choose.
	srv.SetModels(modeltest.DefaultModel)
	if got := hintOf(t, ""); got != "No model yet: no default model is chosen: choose ollama/qwen3:8b in Settings\n" {
		t.Errorf("not chosen: %q", got)
	}

	// Chosen: nothing.
	if got := hintOf(t, "ollama/qwen3:8b"); got != "" {
		t.Errorf("usable: %q, want nothing", got)
	}

	// Ollama not running: start or install it.
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1")
	if got := hintOf(t, ""); !strings.HasPrefix(got, "No model yet: Ollama is not running at http://127.0.0.1:1: start it (`ollama serve`) or install it from https://ollama.com/download") ||
		strings.Count(got, "\n") != 1 {
		t.Errorf("Ollama not running: %q", got)
	}
}

// TestSetupHintOfServe: `docent --serve` says at start, on stderr, that no
// model is set up. The test stops the server once it has read the line (it
// waits for the line, not for a time).
func TestSetupHintOfServe(t *testing.T) {
	srv := modeltest.New(t)
	srv.SetModels()
	modelsEnv(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var out syncBuffer
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sent := false; sc.Scan(); { // read to the end, so the server never blocks on stderr
			if !sent && strings.HasPrefix(sc.Text(), "No model yet") {
				sent = true
				lines <- sc.Text()
				cancel()
			}
		}
	}()
	code := make(chan int, 1)
	data := t.TempDir()
	go func() {
		ios := &IOStreams{In: strings.NewReader(""), Out: &out, Err: pw}
		code <- Run(ctx, []string{"--data-dir", data, "--serve", "--listen", "127.0.0.1:0"}, ios)
		pw.Close()
	}()
	select {
	case line := <-lines:
		if line != "No model yet: Ollama at "+srv.OllamaURL()+" has no models pulled: run `ollama pull qwen3:8b`, then choose it in Settings" {
			t.Errorf("hint %q", line)
		}
	case c := <-code:
		t.Fatalf("docent --serve ended with %d before printing the hint; stdout %q", c, out.String())
	}
	if c := <-code; c != ExitOK || !strings.Contains(out.String(), "Docent is serving on http://127.0.0.1:") {
		t.Errorf("exit %d, stdout %q", c, out.String())
	}
}
