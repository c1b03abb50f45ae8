package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
)

// hintOf runs the check --serve and the desktop make at start, on a data
// directory of the test's own, and returns what it printed.
func hintOf(t *testing.T, model string) string {
	return hintIn(t, t.TempDir(), model)
}

func hintIn(t *testing.T, dataDir, model string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{
		IO:   &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut},
		Root: app.Root{DataDir: dataDir, Model: model, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
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

	// Pulled, not chosen: the one that takes tools becomes the default,
	// so the first chat works without Settings; the next start is quiet.
	srv.SetModels(modeltest.DefaultModel)
	dir := t.TempDir()
	if got := hintIn(t, dir, ""); got != "Using ollama/qwen3:8b, the model in Ollama that can use tools, as the default model (change it in Settings).\n" {
		t.Errorf("not chosen: %q", got)
	}
	if got := hintIn(t, dir, ""); got != "" {
		t.Errorf("the next start: %q, want nothing (the default is saved)", got)
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

// TestFirstChatWorksWithoutSettings: with Ollama running and a model that
// takes tools pulled, and nothing configured, `docent chat` adopts that
// model as the default, says so, and answers.
func TestFirstChatWorksWithoutSettings(t *testing.T) {
	srv := modeltest.New(t)
	modelsEnv(t, srv)
	srv.Enqueue(modeltest.Reply{Text: "Hello from the model."})
	data := importNote(t)
	code, out, errOut := docent(t, data, "chat", "note.txt", "hello")
	if code != ExitOK || !strings.Contains(out, "Hello from the model.") {
		t.Fatalf("first chat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Using ollama/qwen3:8b") {
		t.Errorf("stderr does not say which model was chosen: %s", errOut)
	}
}
