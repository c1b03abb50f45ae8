package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
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
		done, _ := last.Payload.(agent.DonePayload)
		res := done.Result
		if last.Type != agent.EventDone || !res.Paused() || len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != tool {
			t.Fatalf("want a turn paused on %s, got %+v", tool, last)
		}
		return res.TurnID
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
	threadID := evs[0].Payload.(agent.TurnStartedPayload).ThreadID

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
	if done, ok := last.Payload.(agent.DonePayload); !ok || done.Result.Paused() || done.Result.Text != "The invoice 42183017 totals 4.11." {
		t.Fatalf("last turn ended with %+v", last)
	}

	// A turn is approved once.
	if code, _, errOut := docent(t, data, "approve", turnID, "--all"); code != ExitFailure || !strings.Contains(errOut, "already approved") {
		t.Errorf("second approve: exit %d %q", code, errOut)
	}

	db, err := storage.Open(context.Background(), filepath.Join(data, app.DatabaseFile))
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

	// The conversation as the user saw it, in order.
	out, _ = mustRun("threads", doc, threadID)
	at := 0
	for _, want := range []string{
		"you: Extract the invoice number and total", "assistant: I will make a schema.", "→ create_schema", "← create_schema ok",
		"→ create_prompt", "← create_prompt ok", "→ run_extraction", "← run_extraction ok", "assistant: The invoice 42183017 totals 4.11.",
	} {
		i := strings.Index(out[at:], want)
		if i < 0 {
			t.Fatalf("the transcript lacks %q after byte %d:\n%s", want, at, out)
		}
		at += i + len(want)
	}
	out, _ = mustRun("threads", doc, threadID, "--json")
	var tr server.ThreadWithMessages
	if err := json.Unmarshal([]byte(out), &tr); err != nil || tr.ID != threadID || len(tr.Messages) != tr.MessageCount || len(tr.Messages) < 8 {
		t.Errorf("threads DOC THREAD --json: %v, %d messages of %d", err, len(tr.Messages), tr.MessageCount)
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
	if !strings.Contains(se, "→ create_tag \"aws\"\n") || !strings.Contains(se, "  t1  Create tag “aws” (create_tag)\n") ||
		!strings.Contains(se, "approve with: docent approve turn_") || strings.Contains(se, "\033[") {
		t.Errorf("stderr %q", se)
	}
	// The paused turn ends with its thread too.
	if !regexp.MustCompile(`\n— thread thr_\w+ "tag this please" · 1 round · [\d,]+ tokens · \d+\.\d s\n$`).MatchString(se) {
		t.Errorf("stderr does not end with the closing line:\n%s", se)
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

// interactiveChat is a corpus invoice imported into a fresh data directory
// and a scripted model, for the approval questions of `docent chat` on a
// terminal.
type interactiveChat struct {
	t    *testing.T
	srv  *modeltest.Server
	data string
}

const interactiveDoc = "AmazonWebServices.pdf"

func newInteractiveChat(t *testing.T) *interactiveChat {
	t.Helper()
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := t.TempDir()
	if code, _, errOut := docent(t, data, "import", filepath.Join(corpus, "invoice2data", interactiveDoc)); code != ExitOK {
		t.Fatal(errOut)
	}
	return &interactiveChat{t: t, srv: srv, data: data}
}

// chat runs `docent chat DOC MESSAGE args...` as on a terminal, with input
// as what the person types.
func (c *interactiveChat) chat(ctx context.Context, input string, args ...string) (int, string, string) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(input), Out: &out, Err: &errOut, InTTY: true}
	code := Run(ctx, append([]string{"--data-dir", c.data, "chat", interactiveDoc, "please act"}, args...), ios)
	return code, out.String(), errOut.String()
}

// mustChat is chat that must succeed.
func (c *interactiveChat) mustChat(input string) (string, string) {
	c.t.Helper()
	code, out, errOut := c.chat(context.Background(), input)
	if code != ExitOK {
		c.t.Fatalf("chat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := c.srv.Pending(); n != 0 {
		c.t.Errorf("%d scripted replies left\nstdout: %s\nstderr: %s", n, out, errOut)
	}
	return out, errOut
}

// db opens the store; the caller closes it.
func (c *interactiveChat) db() *storage.DB {
	c.t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(c.data, app.DatabaseFile))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { db.Close() })
	return db
}

func (c *interactiveChat) hasTag(name string) bool {
	c.t.Helper()
	_, err := c.db().FindTag(context.Background(), name)
	return err == nil
}

// questions counts the approval questions asked.
func questions(stderr string) int { return strings.Count(stderr, "[a]pprove, [r]eject") }

// fakeEditor makes $VISUAL a script with the given body, run as
// `script FILE`.
func fakeEditor(t *testing.T, body string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake editor is a shell script")
	}
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", path)
}

func createSchemaReply(t *testing.T) modeltest.Reply {
	t.Helper()
	var schema bytes.Buffer
	if err := json.Compact(&schema, []byte(invoiceSchemaJSON)); err != nil {
		t.Fatal(err)
	}
	return modeltest.Reply{Text: "I will make a schema.", ToolCalls: []modeltest.ToolCall{{
		ID: "c1", Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + schema.String() + `}`,
	}}}
}

func TestChatOnTerminalApproves(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(createSchemaReply(t), modeltest.Reply{Text: "The schema invoice is saved."})
	out, errOut := c.mustChat("a\n")
	if out != "I will make a schema.\nThe schema invoice is saved.\n" {
		t.Errorf("stdout %q", out)
	}
	summary := "\nCreate schema “invoice” with 2 fields (create_schema, call c1)\n" +
		"  Fields:\n" +
		"    invoice_number: string, required\n" +
		"    total: number, required\n" +
		"[a]pprove, [r]eject, a[l]ways approve create_schema, [e]dit arguments? "
	if questions(errOut) != 1 || !strings.Contains(errOut, summary) || strings.Contains(errOut, `"response_format"`) ||
		!strings.Contains(errOut, "✓ create_schema: created schema invoice v1 (srv_") || strings.Contains(errOut, "docent approve") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if _, err := c.db().FindSchema(context.Background(), "invoice"); err != nil {
		t.Errorf("schema: %v", err)
	}
}

func TestChatOnTerminalRejects(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(createSchemaReply(t), modeltest.Reply{Text: "Fine, no schema."})
	out, errOut := c.mustChat("r\n")
	if out != "I will make a schema.\nFine, no schema.\n" || questions(errOut) != 1 || !strings.Contains(errOut, "✗ create_schema: "+agent.RejectedText) {
		t.Errorf("stdout %q\nstderr:\n%s", out, errOut)
	}
	if _, err := c.db().FindSchema(context.Background(), "invoice"); err == nil {
		t.Error("a rejected schema was created")
	}
	reqs := c.srv.Requests()
	msgs, err := reqs[len(reqs)-1].ChatMessages()
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, agent.RejectedText) {
		t.Errorf("the model was last sent %+v", last)
	}
}

func TestChatOnTerminalAlwaysApprovesTheTool(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(
		modeltest.Reply{Text: "Tagging.", ToolCalls: []modeltest.ToolCall{
			{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`},
			{ID: "t2", Name: "create_tag", Arguments: `{"name":"cloud"}`},
		}},
		// A later call of the same tool in the same turn is not asked about.
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t3", Name: "create_tag", Arguments: `{"name":"invoices"}`}}},
		modeltest.Reply{Text: "Three tags made."},
	)
	out, errOut := c.mustChat("l\n")
	if out != "Tagging.\nThree tags made.\n" || questions(errOut) != 1 || strings.Count(errOut, "✓ create_tag") != 3 {
		t.Errorf("stdout %q\nstderr:\n%s", out, errOut)
	}
	if !strings.Contains(errOut, "Create tag “aws” (create_tag, call t1, 1 of 2)") {
		t.Errorf("stderr does not number the calls:\n%s", errOut)
	}
	for _, name := range []string{"aws", "cloud", "invoices"} {
		if !c.hasTag(name) {
			t.Errorf("no tag %s", name)
		}
	}
}

func TestChatOnTerminalEditsArguments(t *testing.T) {
	c := newInteractiveChat(t)
	fakeEditor(t, `grep -q '"name": "aws"' "$1" || exit 3; printf '{"name": "edited"}' > "$1"`)
	c.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}},
		modeltest.Reply{Text: "Tagged."},
	)
	out, errOut := c.mustChat("e\n")
	if out != "Tagged.\n" || questions(errOut) != 1 || !strings.Contains(errOut, `edited arguments {"name":"edited"}`) {
		t.Errorf("stdout %q\nstderr:\n%s", out, errOut)
	}
	if !c.hasTag("edited") || c.hasTag("aws") {
		t.Error("the edited arguments did not run instead of the proposed ones")
	}
	reqs := c.srv.Requests()
	msgs, err := reqs[len(reqs)-1].ChatMessages()
	if err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, "edited") {
		t.Errorf("the model was last sent %+v", last)
	}
}

func TestChatOnTerminalRefusesInvalidEditedJSON(t *testing.T) {
	c := newInteractiveChat(t)
	// The first edit leaves broken JSON; the second starts from it and
	// fixes it.
	fakeEditor(t, `if grep -q 'not json' "$1"; then printf '{"name": "fixed"}' > "$1"; else printf '{"name": not json' > "$1"; fi`)
	c.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}},
		modeltest.Reply{Text: "Tagged."},
	)
	out, errOut := c.mustChat("e\ne\n")
	if out != "Tagged.\n" || questions(errOut) != 2 || !strings.Contains(errOut, "not valid JSON") {
		t.Errorf("stdout %q\nstderr:\n%s", out, errOut)
	}
	if !c.hasTag("fixed") || c.hasTag("aws") {
		t.Error("the fixed arguments did not run")
	}
}

func TestChatOnTerminalAsksAgainOnAnUnknownAnswer(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}},
		modeltest.Reply{Text: "Tagged."},
	)
	_, errOut := c.mustChat("\nmaybe\nyes\n")
	if questions(errOut) != 3 || strings.Count(errOut, "answer a, r, l or e") != 2 || !c.hasTag("aws") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

func TestChatOnTerminalStopsAskingAtEndOfInput(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(modeltest.Reply{Text: "Tagging.", ToolCalls: []modeltest.ToolCall{
		{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`},
		{ID: "t2", Name: "create_tag", Arguments: `{"name":"cloud"}`},
	}})
	// One answer, then the end of stdin: nothing is decided, not even t1.
	_, errOut := c.mustChat("a\n")
	if questions(errOut) != 2 || !strings.Contains(errOut, "approve with: docent approve turn_") {
		t.Fatalf("stderr:\n%s", errOut)
	}
	if c.hasTag("aws") || c.hasTag("cloud") {
		t.Error("a tag was made without a complete decision")
	}
	turnID := strings.Fields(errOut[strings.Index(errOut, "docent approve ")+len("docent approve "):])[0]
	c.srv.Enqueue(modeltest.Reply{Text: "Tagged."})
	if code, out, e := docent(t, c.data, "approve", turnID, "--all"); code != ExitOK || out != "Tagged.\n" {
		t.Fatalf("approve: exit %d %q %q", code, out, e)
	}
	if !c.hasTag("aws") || !c.hasTag("cloud") {
		t.Error("approve after the end of input did not run the calls")
	}
}

func TestChatOnTerminalStopsAskingOnInterrupt(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}})
	in, typing := io.Pipe() // a person who never answers
	defer typing.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errOut := &lockedBuffer{}
	var out bytes.Buffer
	ios := &IOStreams{In: in, Out: &out, Err: errOut, InTTY: true}
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"--data-dir", c.data, "chat", interactiveDoc, "tag it"}, ios)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for questions(errOut.String()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no question asked:\n%s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel() // Ctrl-C
	var code int
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("chat does not stop on Ctrl-C while asking")
	}
	se := errOut.String()
	if code != ExitFailure || !strings.Contains(se, "approve with: docent approve turn_") || !strings.Contains(se, "interrupted") {
		t.Errorf("exit %d\nstderr:\n%s", code, se)
	}
	if c.hasTag("aws") {
		t.Error("an interrupted question ran the call")
	}
}

func TestChatWithoutTerminalDoesNotAsk(t *testing.T) {
	c := newInteractiveChat(t)
	c.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"aws"}`}}})
	// --json never asks, even on a terminal.
	code, out, errOut := c.chat(context.Background(), "a\n", "--json")
	if code != ExitOK || questions(errOut) != 0 || !strings.Contains(out, `"turn_id"`) || c.hasTag("aws") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestChatMentions(t *testing.T) {
	c := newInteractiveChat(t)
	for _, bad := range []string{"bad", "widget:x", "schema:", ":x"} {
		code, _, errOut := c.chat(context.Background(), "", "--mention", bad)
		if code != ExitUsage || !strings.Contains(errOut, "--mention") || !strings.Contains(errOut, "schema, prompt, tag, document") {
			t.Errorf("--mention %s: exit %d %q", bad, code, errOut)
		}
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("a bad --mention reached the model (%d requests)", n)
	}

	// The agent resolves the ids: an unknown one fails before any model
	// call, a known one reaches the system message.
	if code, _, errOut := c.chat(context.Background(), "", "--mention", "tag:tag_nope"); code != ExitFailure || !strings.Contains(errOut, "tag_nope") {
		t.Errorf("unknown mention: exit %d %q", code, errOut)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("an unknown mention reached the model (%d requests)", n)
	}
	code, out, errOut := docent(t, c.data, "tags", "create", "--name", "mentioned-tag")
	if code != ExitOK {
		t.Fatalf("tags create: %d %s %s", code, out, errOut)
	}
	tag, err := c.db().FindTag(context.Background(), "mentioned-tag")
	if err != nil {
		t.Fatal(err)
	}
	c.srv.Enqueue(modeltest.Reply{Text: "I see the tag."})
	if code, out, errOut := c.chat(context.Background(), "", "--mention", "tag:"+tag.ID); code != ExitOK || out != "I see the tag.\n" {
		t.Fatalf("chat with a mention: exit %d %q %q", code, out, errOut)
	}
	msgs, err := c.srv.Requests()[0].ChatMessages()
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "mentioned-tag") {
		t.Errorf("the mentioned tag is not in the system message:\n%s", msgs[0].Content)
	}

	got, err := parseMentions([]string{"schema:sch_1", "Document: doc_2", "tag:a:b"})
	want := []agent.Mention{{Type: "schema", ID: "sch_1"}, {Type: "document", ID: "doc_2"}, {Type: "tag", ID: "a:b"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseMentions: %+v %v", got, err)
	}
}

// TestChatPrintsOneLinePerCallAndResult runs a turn that reads a page,
// fails to read another, makes a schema and a prompt and runs an
// extraction (all auto-approved), and checks what a person reads on
// stderr: each call and result on one line, no JSON, and a closing line
// with the thread, rounds, tokens and time.
func TestChatPrintsOneLinePerCallAndResult(t *testing.T) {
	c := newInteractiveChat(t)
	var schema bytes.Buffer
	if err := json.Compact(&schema, []byte(invoiceSchemaJSON)); err != nil {
		t.Fatal(err)
	}
	script := func() {
		c.srv.Enqueue(
			modeltest.Reply{PromptTokens: 1000, CompletionTokens: 12, ToolCalls: []modeltest.ToolCall{
				{ID: "c1", Name: "get_ocr_text", Arguments: `{"page_num":1}`},
				{ID: "c2", Name: "get_ocr_text", Arguments: `{"page_num":9}`},
				{ID: "c3", Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + schema.String() + `}`},
			}},
			modeltest.Reply{PromptTokens: 5000, CompletionTokens: 30, ToolCalls: []modeltest.ToolCall{{
				ID: "c4", Name: "create_prompt", Arguments: `{"name":"Invoice prompt","content":"Extract the invoice number and the total.","schema_id":"invoice"}`,
			}}},
			modeltest.Reply{PromptTokens: 5500, CompletionTokens: 8, ToolCalls: []modeltest.ToolCall{{ID: "c5", Name: "run_extraction", Arguments: `{}`}}},
			// The extraction: the total is not in the document.
			modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 999.99}`},
			modeltest.Reply{PromptTokens: 5800, CompletionTokens: 62, Text: "Extracted."},
		)
	}
	script()
	code, out, errOut := c.chat(context.Background(), "", "--auto-approve")
	if code != ExitOK || out != "Extracted.\n" {
		t.Fatalf("chat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	want := []string{
		`^→ get_ocr_text page 1$`,
		`^→ get_ocr_text page 9$`,
		`^→ create_schema "invoice" \(2 fields\)$`,
		`^✓ get_ocr_text: page 1 of 1, [\d,]+ characters$`,
		`^✗ get_ocr_text: page 9 out of range: document AmazonWebServices.pdf has pages 1-1$`,
		`^✓ create_schema: created schema invoice v1 \(srv_\w+\)$`,
		`^→ create_prompt "Invoice prompt" \(schema "invoice"\)$`,
		`^✓ create_prompt: created prompt Invoice prompt v1 \(prv_\w+\)$`,
		`^→ run_extraction with the conversation's prompt "Invoice prompt" v1$`,
		`^✓ run_extraction: valid, 1 value not found in the document \(total\)$`,
		`^undo with: docent undo --turn turn_\w+$`,
		`^— thread thr_\w+ "please act" · 4 rounds · 17,412 tokens · \d+\.\d s$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines on stderr, want %d:\n%s", len(lines), len(want), errOut)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d is %q, want %s", i+1, lines[i], re)
		}
	}

	// --verbose adds each call's arguments as JSON, whole.
	c = newInteractiveChat(t)
	script()
	code, _, errOut = c.chat(context.Background(), "", "--auto-approve", "--verbose")
	if code != ExitOK || !strings.Contains(errOut, "→ create_schema \"invoice\" (2 fields)\n  {\"name\":\"invoice\",\"response_format\":"+schema.String()+"}\n") ||
		!strings.Contains(errOut, "→ get_ocr_text page 1\n  {\"page_num\":1}\n") {
		t.Errorf("--verbose: exit %d\nstderr:\n%s", code, errOut)
	}
}

// The lines of results, and the glue of a call line (the words of each
// tool's call line are tested with the summaries, in agent).
func TestCallAndResultLines(t *testing.T) {
	c := agent.ToolCall{ID: "c", Name: "get_schema", Arguments: json.RawMessage(`{"schema_revid":"srv_1"}`)}
	if got := callLine(c, summaryOf(t.Context(), c, nil)); got != `get_schema "srv_1"` {
		t.Errorf("call line %q", got)
	}
	if got := callLine(agent.ToolCall{Name: "get_document"}, agent.Summary{}); got != "get_document" {
		t.Errorf("call line without words %q", got)
	}
	for _, c := range []struct {
		ev   agent.ToolResultPayload
		want string
	}{
		{agent.ToolResultPayload{Name: "get_ocr_text", ToolResult: agent.ToolResult{Success: true, Result: json.RawMessage(`{"text":"` + strings.Repeat("x", 1234) + `","page":2,"pages":3}`)}},
			"get_ocr_text: page 2 of 3, 1,234 characters"},
		{agent.ToolResultPayload{Name: "get_ocr_text", ToolResult: agent.ToolResult{Success: true, Result: json.RawMessage(`{"text":"abc\n[truncated: 10 more characters]","pages":3}`)}},
			"get_ocr_text: 3 pages, 3 characters, cut"},
		{agent.ToolResultPayload{Name: "run_extraction", ToolResult: agent.ToolResult{Success: true, Preview: "extracted",
			Result: json.RawMessage(`{"extraction":{"value":{},"validation_status":"valid","ungrounded":["total","date"]}}`)}},
			"run_extraction: valid, 2 values not found in the document (total, date)"},
		{agent.ToolResultPayload{Name: "get_extraction_result", ToolResult: agent.ToolResult{Success: true,
			Result: json.RawMessage(`{"extraction":{"value":{},"validation_status":"invalid","validation_errors":[{"path":"/total","message":"want number"}]}}`)}},
			"get_extraction_result: invalid (/total: want number)"},
		{agent.ToolResultPayload{Name: "validate_schema", ToolResult: agent.ToolResult{Success: true, Result: json.RawMessage(`{"valid":true}`)}}, "validate_schema: valid"},
		{agent.ToolResultPayload{Name: "list_tags", ToolResult: agent.ToolResult{Success: true, Result: json.RawMessage(`{"tags":[{}],"total":3}`)}}, "list_tags: 1 of 3 tags"},
		{agent.ToolResultPayload{Name: "help_schemas", ToolResult: agent.ToolResult{Success: true, Result: json.RawMessage(`"guide"`)}}, "help_schemas"},
		{agent.ToolResultPayload{Name: "create_tag", ToolResult: agent.ToolResult{Success: true, Preview: "created tag aws (tag_1)"}}, "create_tag: created tag aws (tag_1)"},
		{agent.ToolResultPayload{Name: "create_tag", ToolResult: agent.ToolResult{Error: "a tag named aws exists"}}, "create_tag: a tag named aws exists"},
	} {
		if got := resultLine(c.ev); got != c.want {
			t.Errorf("%s: %q, want %q", c.ev.Name, got, c.want)
		}
	}
	if got := closingLine("thr_1", "Invoice setup", 3, 4812, 12400*time.Millisecond, agent.TurnUsage{}); got != `— thread thr_1 "Invoice setup" · 3 rounds · 4,812 tokens · 12.4 s` {
		t.Errorf("closing line %q", got)
	}
	// What the turn cost, as the app's footer says it: nothing on a local
	// model, and never a figure for a call of unknown price.
	cost := func(usd float64) *float64 { return &usd }
	for _, c := range []struct {
		usage agent.TurnUsage
		want  string
	}{
		{agent.TurnUsage{CostUSD: cost(0)}, " · 3 rounds · 4,812 tokens · 12.4 s"},
		{agent.TurnUsage{CostUSD: cost(0.0014)}, " · 3 rounds · 4,812 tokens · $0.0014 · 12.4 s"},
		{agent.TurnUsage{UnpricedCalls: 2}, " · 3 rounds · 4,812 tokens · price unknown · 12.4 s"},
		{agent.TurnUsage{CostUSD: cost(0.25), UnpricedCalls: 1}, " · 3 rounds · 4,812 tokens · $0.25 + 1 call of unknown price · 12.4 s"},
	} {
		if got := closingLine("thr_1", "", 3, 4812, 12400*time.Millisecond, c.usage); got != "— thread thr_1"+c.want {
			t.Errorf("closing line of %+v: %q", c.usage, got)
		}
	}
	if got := turnDuration(125 * time.Second); got != "2 min 5 s" {
		t.Errorf("duration %q", got)
	}
}

func TestPrettyArgsIsCut(t *testing.T) {
	if got := prettyArgs(json.RawMessage(`{"a":1}`), 40, 200); got != "{\n  \"a\": 1\n}" {
		t.Errorf("short arguments: %q", got)
	}
	var fields []string
	for i := range 100 {
		fields = append(fields, fmt.Sprintf(`"f%d":"%s"`, i, strings.Repeat("x", 500)))
	}
	got := prettyArgs(json.RawMessage("{"+strings.Join(fields, ",")+"}"), 40, 200)
	lines := strings.Split(got, "\n")
	if len(lines) != 41 || !strings.Contains(lines[40], "62 more lines") {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 200 {
			t.Errorf("line of %d runes", n)
		}
	}
	if got := prettyArgs(nil, 40, 200); got != "{}" {
		t.Errorf("no arguments: %q", got)
	}
}

// lockedBuffer is a buffer written by a command and read by the test at
// the same time.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
