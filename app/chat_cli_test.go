package app

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// TestChatAndApproveFromTheCommandLine walks a conversation on a corpus
// invoice in which the scripted model creates a schema, a prompt and an
// extraction, each paused for `docent approve TURN --all`, then answers.
func TestChatAndApproveFromTheCommandLine(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("DOCENT_MODEL", "")
	data := t.TempDir()
	const doc = "AmazonWebServices.pdf"
	const model = "ollama/qwen3:8b"

	mustRun := func(args ...string) (string, string) {
		t.Helper()
		code, out, errOut := docent(t, data, args...)
		if code != ExitOK {
			t.Fatalf("docent %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
		return out, errOut
	}
	// turn runs a chat or approve with --json, checks its NDJSON (as a
	// continuation of prev when prev is given) and returns its events.
	turn := func(prev []agent.Event, args ...string) []agent.Event {
		t.Helper()
		out, _ := mustRun(append(args, "--json")...)
		var opts []eventcheck.Option
		if prev != nil {
			opts = append(opts, eventcheck.ContinuationOf(prev))
		}
		if err := eventcheck.CheckNDJSON(strings.NewReader(out), opts...); err != nil {
			t.Fatalf("docent %s: events: %v\n%s", strings.Join(args, " "), err, out)
		}
		evs, err := eventcheck.ReadNDJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	pausedTurn := func(evs []agent.Event, tool string) string {
		t.Helper()
		last := evs[len(evs)-1]
		if last.Type != agent.EventDone || !last.TurnResult.Paused() || len(last.TurnResult.ToolCalls) != 1 || last.TurnResult.ToolCalls[0].Name != tool {
			t.Fatalf("want a turn paused on %s, got %+v", tool, last)
		}
		return last.TurnResult.TurnID
	}

	mustRun("import", filepath.Join(corpus, "invoice2data", doc))

	// Ollama streams NDJSON: the arguments must stay on one line.
	var schema bytes.Buffer
	if err := json.Compact(&schema, []byte(invoiceSchemaJSON)); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(modeltest.Reply{Text: "I will make a schema.", ToolCalls: []modeltest.ToolCall{{
		ID: "c1", Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + schema.String() + `}`,
	}}})
	evs := turn(nil, "chat", doc, "Extract the invoice number and total", "--model", model)
	turnID := pausedTurn(evs, "create_schema")
	threadID := evs[0].ThreadID

	srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{
		ID: "c2", Name: "create_prompt",
		Arguments: `{"name":"aws","content":"Extract the invoice number and the total amount due.","schema_id":"invoice","model":"` + model + `"}`,
	}}})
	evs = turn(evs, "approve", turnID, "--all")
	turnID = pausedTurn(evs, "create_prompt")

	srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c3", Name: "run_extraction", Arguments: `{"prompt_revid":"aws"}`}}})
	evs = turn(evs, "approve", turnID, "--all")
	turnID = pausedTurn(evs, "run_extraction")

	srv.Enqueue(
		modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`}, // the extraction itself
		modeltest.Reply{Text: "The invoice 42183017 totals 4.11."},
	)
	evs = turn(evs, "approve", turnID, "--all")
	last := evs[len(evs)-1]
	if last.Type != agent.EventDone || last.TurnResult.Paused() || last.TurnResult.Text != "The invoice 42183017 totals 4.11." {
		t.Fatalf("last turn ended with %+v", last)
	}

	// A turn is approved once.
	if code, _, errOut := docent(t, data, "approve", turnID, "--all"); code != ExitFailure || !strings.Contains(errOut, "already approved") {
		t.Errorf("second approve: exit %d %q", code, errOut)
	}

	db, err := storage.Open(context.Background(), filepath.Join(data, databaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.FindSchema(ctx, "invoice"); err != nil {
		t.Errorf("schema: %v", err)
	}
	prompt, err := db.FindPrompt(ctx, "aws")
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	d, err := db.FindDocument(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	exts, err := db.ListExtractions(ctx, d.ID)
	if err != nil || len(exts) != 1 || exts[0].PromptRevID != prompt.PromptRevID || exts[0].ValidationStatus != storage.ValidationValid {
		t.Errorf("extractions %+v, %v", exts, err)
	}
	db.Close()

	out, _ := mustRun("threads", doc, "--json")
	var threads threadList
	if err := json.Unmarshal([]byte(out), &threads); err != nil || len(threads.Threads) != 1 || threads.Threads[0].ID != threadID {
		t.Fatalf("threads --json: %+v %v\n%s", threads, err, out)
	}
	out, _ = mustRun("threads", doc)
	if !strings.Contains(out, "THREAD") || !strings.Contains(out, threadID) {
		t.Errorf("threads table:\n%s", out)
	}
}

// TestChatForPeople checks the output without --json: the answer on stdout,
// tool calls and the way to approve on stderr, the message read from stdin.
func TestChatForPeople(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := t.TempDir()
	const doc = "AmazonWebServices.pdf"
	if code, _, errOut := docent(t, data, "import", filepath.Join(corpus, "invoice2data", doc)); code != ExitOK {
		t.Fatal(errOut)
	}

	srv.Enqueue(modeltest.Reply{Text: "Let me tag it.", ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}})
	var out, errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader("tag this please\n"), Out: &out, Err: &errOut}
	if code := Run(context.Background(), []string{"--data-dir", data, "chat", doc}, ios); code != ExitOK {
		t.Fatalf("chat: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if out.String() != "Let me tag it.\n" {
		t.Errorf("stdout %q", out.String())
	}
	se := errOut.String()
	if !strings.Contains(se, "→ create_tag {") || !strings.Contains(se, "approve with: docent approve turn_") || strings.Contains(se, "\033[") {
		t.Errorf("stderr %q", se)
	}
	turnID := se[strings.Index(se, "docent approve ")+len("docent approve "):]
	turnID = strings.Fields(turnID)[0]

	if code, _, errOut := docent(t, data, "approve", turnID, "--approve", "nope"); code != ExitUsage || !strings.Contains(errOut, "t1") {
		t.Errorf("approve of an unknown call: exit %d %q", code, errOut)
	}
	if code, _, _ := docent(t, data, "approve", turnID); code != ExitUsage {
		t.Errorf("approve without a decision: exit %d", code)
	}
	srv.Enqueue(modeltest.Reply{Text: "Fine, I left it."})
	code, o, e := docent(t, data, "approve", turnID, "--reject", "t1")
	if code != ExitOK || o != "Fine, I left it.\n" || !strings.Contains(e, "✗ create_tag: "+agent.RejectedText) {
		t.Errorf("reject: exit %d %q %q", code, o, e)
	}

	// A failing model ends the turn with exit 1 and its message.
	srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "the model broke"}})
	if code, _, e := docent(t, data, "chat", doc, "hello"); code != ExitFailure || !strings.Contains(e, "the model broke") {
		t.Errorf("failed turn: exit %d %q", code, e)
	}
}
