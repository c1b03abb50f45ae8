package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/prices"
	"github.com/docent/docent/storage"
)

// Every scripted call reports 1,000 prompt and 100 completion tokens, and
// the limit is 6,600 tokens a day on all models: six calls' worth.
const (
	callTokens      = 1100
	usageLimitDaily = 6600
)

// reporting makes every reply of a scripted model report 1,000 prompt and
// 100 completion tokens.
func reporting(model func(modeltest.Request) modeltest.Reply) func(modeltest.Request) modeltest.Reply {
	return func(r modeltest.Request) modeltest.Reply {
		rep := model(r)
		rep.PromptTokens, rep.CompletionTokens = 1000, 100
		return rep
	}
}

func mustDocent(t *testing.T, data string, args ...string) string {
	t.Helper()
	code, out, errOut := docent(t, data, args...)
	if code != ExitOK {
		t.Fatalf("docent %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// usageJSON is `docent usage --json` read back.
func usageJSON(t *testing.T, data string, args ...string) usageReport {
	t.Helper()
	var r usageReport
	out := mustDocent(t, data, append([]string{"usage", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, out)
	}
	return r
}

// checkLedgerSums checks that `docent usage --json` is the ledger summed
// exactly, by every grouping, and that every call is one the server
// answered with its reported counts; it returns the calls.
func checkLedgerSums(t *testing.T, data string, db *storage.DB, served int) int64 {
	t.Helper()
	rows, err := db.UsageCalls(context.Background(), time.Time{}, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var in, out int64
	for _, r := range rows {
		if r.InputTokens != 1000 || r.OutputTokens != 100 || r.Estimated || r.Outcome != "ok" || r.CostUSD == nil || *r.CostUSD != 0 {
			t.Errorf("ledger row %+v: want the reported 1000/100, ok, cost 0 (a local model)", r)
		}
		in += int64(r.InputTokens)
		out += int64(r.OutputTokens)
	}
	if len(rows) != served {
		t.Errorf("the ledger has %d calls; the model server answered %d", len(rows), served)
	}
	for _, by := range []string{"day", "model", "edge"} {
		rep := usageJSON(t, data, "--by", by)
		if rep.Total.Calls != int64(len(rows)) || rep.Total.InputTokens != in || rep.Total.OutputTokens != out || rep.Total.UnpricedCalls != 0 {
			t.Errorf("usage --by %s: total %+v; the ledger has %d calls, %d input and %d output tokens", by, rep.Total, len(rows), in, out)
		}
		var calls, tokens int64
		for _, g := range rep.Groups {
			calls += g.Calls
			tokens += g.InputTokens + g.OutputTokens
		}
		if calls != int64(len(rows)) || tokens != in+out {
			t.Errorf("usage --by %s: groups sum to %d calls, %d tokens; want %d, %d", by, calls, tokens, len(rows), in+out)
		}
	}
	return int64(len(rows))
}

// With a limit of 6,600 tokens a day, `docent extract` over 10 documents
// extracts while there is room, fails the rest with spending_limit, and
// extracts them once the limit is raised; `docent usage --json` sums the
// ledger exactly.
func TestSpendingLimitStopsExtractionUntilRaised(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(reporting(autoCreateModel(0)))
	data := t.TempDir()
	mustDocent(t, data, "import", textInvoices(t, 10))
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDocent(t, data, "schemas", "create", "--name", "invoice", "--file", schemaFile)
	mustDocent(t, data, "prompts", "create", "--name", "p", "--schema", "invoice", "--content", "Extract the invoice number and the total.")
	out := mustDocent(t, data, "usage", "limit", "--daily", fmt.Sprint(usageLimitDaily), "--all-models")
	if !strings.Contains(out, "6,600 tokens a day") || !strings.Contains(out, "all models") {
		t.Errorf("usage limit says %q", out)
	}
	var docs []string
	for i := range 10 {
		docs = append(docs, fmt.Sprintf("invoice-%03d.txt", i+1))
	}

	code, stdout, errOut := docent(t, data, append([]string{"extract", "--prompt", "p", "--json"}, docs...)...)
	var report extractReport
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != ExitFailure {
		t.Fatalf("extract over the limit: exit %d (%v)\n%s\n%s", code, err, stdout, errOut)
	}
	if len(report.Extractions) != 6 || len(report.Errors) != 4 {
		t.Fatalf("%d extracted, %d failed; want 6 within the limit and 4 stopped", len(report.Extractions), len(report.Errors))
	}
	for _, e := range report.Errors {
		if e.Code != string(storage.SpendingLimit) || !strings.Contains(e.Error, "spending limit reached") || !strings.Contains(e.Error, "docent usage limit --daily") {
			t.Errorf("%s: %s (%s), want spending_limit saying how to raise it", e.Document, e.Error, e.Code)
		}
	}
	db := openData(t, data)
	if calls := checkLedgerSums(t, data, db, len(srv.Requests())); calls*callTokens > usageLimitDaily+callTokens {
		t.Errorf("%d calls spent %d tokens: more than the limit plus one call", calls, calls*callTokens)
	}
	if st := usageJSON(t, data).Status; st.Reached == "" || st.Today != 6600 {
		t.Errorf("status %+v: want the limit reached at 6,600 tokens", st)
	}

	mustDocent(t, data, "usage", "limit", "--daily", "100000")
	var failed []string
	for _, e := range report.Errors {
		failed = append(failed, e.Document)
	}
	mustDocent(t, data, append([]string{"extract", "--prompt", "p", "--json"}, failed...)...)
	if calls := checkLedgerSums(t, data, db, len(srv.Requests())); calls != 10 {
		t.Errorf("%d calls after raising the limit, want 10", calls)
	}
}

// An auto-create batch of 10 with 8 workers spends no more than the limit
// plus one call, pauses the rest at spending_limit, and finishes them by
// itself once the limit is raised from another process.
func TestSpendingLimitPausesAutoCreateUntilRaised(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(reporting(autoCreateModel(0)))
	data := t.TempDir()
	dir := textInvoices(t, 10)
	mustDocent(t, data, "usage", "limit", "--daily", fmt.Sprint(usageLimitDaily), "--all-models")

	var out, errOut syncBuffer
	ios := &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}
	exit := make(chan int, 1)
	go func() {
		exit <- Run(context.Background(), []string{"--data-dir", data, "auto-create", "--concurrency", "8", dir}, ios)
	}()

	db := openData(t, data)
	ctx := context.Background()
	// Paused: it said so, and no document is running (the workers wait).
	var seen string
	deadline := time.Now().Add(60 * time.Second)
	for {
		docs := allDocuments(t, db)
		running, proposed := 0, 0
		for _, d := range docs {
			switch d.AutoCreateStatus {
			case storage.AutoCreateRunning:
				running++
			case storage.AutoCreateProposed:
				proposed++
			}
		}
		seen = fmt.Sprintf("%d documents, %d running, %d proposed; stderr:\n%s", len(docs), running, proposed, errOut.String())
		if len(docs) == 10 && running == 0 && strings.Contains(errOut.String(), "auto-create paused") {
			break
		}
		select {
		case code := <-exit:
			t.Fatalf("the batch ended (exit %d) instead of pausing: %s\n%s", code, seen, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the batch did not pause: %s", seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	msg := errOut.String()
	for _, want := range []string{"spending limit reached", "6,600 tokens a day", "docent usage limit --daily", "go on once the limit allows"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the pause message lacks %q:\n%s", want, msg)
		}
	}
	s, err := db.UsageSummary(ctx, time.Time{}, storage.UsageByEdge)
	if err != nil {
		t.Fatal(err)
	}
	if spent := s.Total.InputTokens + s.Total.OutputTokens; spent < usageLimitDaily || spent > usageLimitDaily+callTokens {
		t.Errorf("paused having spent %d tokens in %d calls; want from the limit (6,600) to one call more", spent, s.Total.Calls)
	}
	if len(s.Groups) != 1 || s.Groups[0].Edge != string(storage.EdgeAutoCreate) {
		t.Errorf("by edge: %+v, want every call auto_create's", s.Groups)
	}
	pending := 0
	for _, d := range allDocuments(t, db) {
		if d.AutoCreateStatus != storage.AutoCreateProposed {
			pending++
			if d.AutoCreateStatus == storage.AutoCreateFailed {
				t.Errorf("%s failed (%s): a paused document waits, it does not fail", d.Name, d.AutoCreateError)
			}
		}
	}
	if pending == 0 {
		t.Fatal("every document was proposed under the limit: nothing was paused")
	}

	// Raised from another process on the same data directory: the batch
	// goes on and finishes them.
	mustDocent(t, data, "usage", "limit", "--daily", "1000000")
	select {
	case code := <-exit:
		if code != ExitOK {
			t.Fatalf("the batch after raising the limit: exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("the batch did not go on after the limit was raised:\n%s", errOut.String())
	}
	checkProposedOnce(t, db, allDocuments(t, db))
	checkLedgerSums(t, data, db, len(srv.Requests()))
}

// A chat turn over the limit ends with the message: the limit, what was
// spent and where to raise it; with --json as the error event, code
// spending_limit.
func TestSpendingLimitEndsAChatTurn(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	data := importNote(t)
	mustDocent(t, data, "usage", "limit", "--daily", "0", "--all-models")
	code, out, errOut := docent(t, data, "chat", "note.txt", "What does it say?", "--json")
	if code == ExitOK {
		t.Fatalf("chat over the limit succeeded:\n%s", out)
	}
	var event struct {
		Type, Error, Code string
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if json.Unmarshal([]byte(line), &event) == nil && event.Type == "error" {
			found = true
			break
		}
	}
	if !found || event.Code != string(storage.SpendingLimit) || !strings.Contains(event.Error, "nothing may be spent") || !strings.Contains(event.Error, "docent usage limit") {
		t.Errorf("error event %+v (found %v), want code spending_limit saying the limit and how to raise it\nstdout: %s\nstderr: %s", event, found, out, errOut)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model server heard %d requests over a limit of 0", len(srv.Requests()))
	}
}

// An MCP client's call that would go past the limit is a tool error
// saying so, and the model hears nothing; within the limit, the call is
// in the ledger under the mcp edge.
func TestSpendingLimitIsAnMCPToolError(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	t.Setenv("HOME", t.TempDir())
	srv.Handle(reporting(autoCreateModel(0)))
	data := t.TempDir()
	mustDocent(t, data, "import", textInvoices(t, 1))
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDocent(t, data, "schemas", "create", "--name", "invoice", "--file", schemaFile)
	mustDocent(t, data, "prompts", "create", "--name", "p", "--schema", "invoice", "--content", "Extract the invoice number and the total.")
	mustDocent(t, data, "usage", "limit", "--daily", fmt.Sprint(callTokens), "--all-models")

	cs, _ := startMCP(t, "--data-dir", data, "mcp")
	args := map[string]any{"document_id": allDocuments(t, openData(t, data))[0].ID, "prompt_revid": "p"}
	var run map[string]any
	mcpOK(t, cs, "run_extraction", args, &run)
	res := mcpCall(t, cs, "run_extraction", args)
	if !res.IsError || !strings.Contains(mcpText(res), "spending limit reached") || !strings.Contains(mcpText(res), "docent usage limit") {
		t.Errorf("run_extraction over the limit: error %v, %s; want a tool error saying the limit", res.IsError, mcpText(res))
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model heard %d requests, want the 1 within the limit", n)
	}
	rep := usageJSON(t, data, "--by", "edge")
	if len(rep.Groups) != 1 || rep.Groups[0].Edge != string(storage.EdgeMCP) || rep.Groups[0].Calls != 1 {
		t.Errorf("by edge: %+v, want the one call under mcp", rep.Groups)
	}
}

// A hosted model's calls are priced from the list built into Docent:
// `docent usage` shows what the list's price for gpt-4o-mini makes of
// the tokens the server reported, not "price unknown".
func TestHostedCallsArePricedFromTheList(t *testing.T) {
	srv := modeltest.New(t, modeltest.Model{Name: "gpt-4o-mini", ContextLength: 128000, Capabilities: []string{"completion", "tools"}})
	autoCreateEnv(t, srv)
	t.Setenv("DOCENT_MODEL", "openai/gpt-4o-mini")
	srv.Handle(reporting(autoCreateModel(0)))
	data := t.TempDir()
	mustDocent(t, data, "import", textInvoices(t, 2))
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDocent(t, data, "schemas", "create", "--name", "invoice", "--file", schemaFile)
	mustDocent(t, data, "prompts", "create", "--name", "p", "--schema", "invoice", "--content", "Extract the invoice number and the total.")
	mustDocent(t, data, "extract", "--prompt", "p", "invoice-001.txt", "invoice-002.txt")

	list, err := prices.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	one, ok := list.Cost("openai", "gpt-4o-mini", 1000, 100, 0)
	if !ok || one <= 0 {
		t.Fatalf("the list prices gpt-4o-mini at %v (%v)", one, ok)
	}
	rep := usageJSON(t, data, "--by", "model")
	if rep.Total.Calls != 2 || rep.Total.UnpricedCalls != 0 || math.Abs(rep.Total.CostUSD-2*one) > 1e-9 {
		t.Errorf("usage total %+v: want 2 calls priced at %v each", rep.Total, one)
	}
}
