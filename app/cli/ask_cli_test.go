package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// askInvoices are corpus invoices with their verified numbers and totals
// (the folder's *.expected.verified.json).
var askInvoices = []struct{ name, number string }{
	{"AmazonWebServices.pdf", `{"invoice_number": "42183017", "total": 4.11}`},
	{"AzureInterior.pdf", `{"invoice_number": "INV/2023/03/0008", "total": 279.84}`},
	{"FlipkartInvoice.pdf", `{"invoice_number": "#BLR_WFLD20151000982590", "total": 319.0}`},
}

// askData imports the corpus invoices of askInvoices into a new data
// directory and extracts each with an Invoice schema, the scripted model
// answering its verified values; it returns the directory and the
// extractions by document name.
func askData(t *testing.T, srv *modeltest.Server) (string, map[string]storage.Extraction) {
	t.Helper()
	corpus := testcorpus.Dir(t)
	data := t.TempDir()
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errOut := docent(t, data, args...)
		if code != ExitOK {
			t.Fatalf("docent %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	for _, inv := range askInvoices {
		mustRun("import", filepath.Join(corpus, "invoice2data", inv.name))
	}
	mustRun("schemas", "create", "--name", "Invoice", "--file", schemaFile)
	mustRun("prompts", "create", "--name", "invoices", "--schema", "Invoice", "--content", "Extract the invoice number and the total amount due.")
	exts := map[string]storage.Extraction{}
	for _, inv := range askInvoices {
		srv.Enqueue(modeltest.Reply{Text: inv.number})
		var report extractReport
		if err := json.Unmarshal([]byte(mustRun("extract", "--prompt", "invoices", inv.name, "--json")), &report); err != nil || len(report.Extractions) != 1 {
			t.Fatalf("extract %s: %+v %v", inv.name, report, err)
		}
		exts[inv.name] = report.Extractions[0]
	}
	return data, exts
}

// lastToolResult is the tool result the model was last sent, decoded.
func lastToolResult(t *testing.T, req modeltest.Request, v any) {
	t.Helper()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		var m struct{ Role, Content string }
		if err := json.Unmarshal(req.Messages[i], &m); err != nil {
			t.Errorf("message %d: %v", i, err)
			return
		}
		if m.Role == "tool" {
			if err := json.Unmarshal([]byte(m.Content), v); err != nil {
				t.Errorf("the tool result %q: %v", m.Content, err)
			}
			return
		}
	}
	t.Errorf("the model was sent no tool result")
}

// sumModel scripts a model that answers a question about spending with
// query_data, then with the sum SQLite returned, citing the number the
// result carried: the answer's figure is SQLite's, not the test's.
func sumModel(t *testing.T, srv *modeltest.Server, sql string) {
	srv.Handle(func(req modeltest.Request) modeltest.Reply {
		var last struct{ Role string }
		json.Unmarshal(req.Messages[len(req.Messages)-1], &last)
		if last.Role != "tool" {
			args, _ := json.Marshal(map[string]string{"sql": sql})
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "query_data", Arguments: string(args)}}}
		}
		var res struct {
			Cite int     `json:"cite"`
			Rows [][]any `json:"rows"`
		}
		lastToolResult(t, req, &res)
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			return modeltest.Reply{Text: fmt.Sprintf("I could not sum it: %v", res.Rows)}
		}
		return modeltest.Reply{Text: fmt.Sprintf("You spent %v in total [%d].", res.Rows[0][0], res.Cite)}
	})
}

// TestAskSumsTheInvoicesWithCitations is a question about the whole
// library answered with citations a person can check, on the command line: corpus invoices extracted with known totals, `docent ask
// "how much did I spend in total?" --json` with the scripted model calling
// query_data over the schema's view; the answer has SQLite's exact sum and
// its citation [1] is the query, listing every row it summed with its
// document and the evidence of its total. The same query through `docent
// sql` gives the same result.
func TestAskSumsTheInvoicesWithCitations(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data, exts := askData(t, srv)
	const sum = "SELECT round(sum(total), 2) AS spent FROM invoice"
	sumModel(t, srv, sum)

	code, out, errOut := docent(t, data, "ask", "how much did I spend in total?", "--json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("ask --json: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res agent.TurnResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ask --json printed more than the result: %v\n%s", err, out)
	}
	if res.Text != "You spent 602.95 in total [1]." || res.ThreadID == "" || len(res.UnknownCitations) != 0 {
		t.Errorf("the answer %q in thread %q, unknown %v", res.Text, res.ThreadID, res.UnknownCitations)
	}
	if len(res.Citations) != 1 {
		t.Fatalf("citations %+v", res.Citations)
	}
	c := res.Citations[0]
	if c.N != 1 || c.Kind != agent.CiteQuery || c.SQL != sum || c.RowCount != 1 || !reflect.DeepEqual(c.Rows, [][]any{{602.95}}) || c.SourcesNote != "" {
		t.Errorf("citation [1] %+v", c)
	}
	var summed []string
	for _, row := range c.Sources {
		x := exts[row.Document]
		if row.View != "invoice" || row.DocumentID != x.DocumentID || row.ExtractionID != x.ID {
			t.Errorf("summed row %+v; want the invoice view's row of %s's extraction %s", row, row.Document, x.ID)
		}
		// The total it summed, where it stands in the document.
		ev, ok := row.Evidence["total"]
		if !ok || ev.Status != evidence.Grounded || ev.Page != 1 || ev.Quote == "" || len(ev.BBox) != 4 {
			t.Errorf("%s: the evidence of its total %+v", row.Document, ev)
		}
		summed = append(summed, row.Document)
	}
	slices.Sort(summed)
	if want := []string{"AmazonWebServices.pdf", "AzureInterior.pdf", "FlipkartInvoice.pdf"}; !slices.Equal(summed, want) {
		t.Errorf("the sum's citation lists %v, want every invoice %v", summed, want)
	}

	// docent sql answers the same views: the cited query gives the cited
	// result.
	code, out, errOut = docent(t, data, "sql", c.SQL, "--format", "json")
	var direct storage.DataResult
	if err := json.Unmarshal([]byte(out), &direct); code != ExitOK || err != nil {
		t.Fatalf("sql: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if !slices.Equal(direct.Columns, c.Columns) || !reflect.DeepEqual(direct.Rows, c.Rows) || direct.RowCount != c.RowCount {
		t.Errorf("docent sql %q: %+v; the citation: %v %v", c.SQL, direct, c.Columns, c.Rows)
	}
}

// TestAskStreamsTheAnswerAndItsFootnotes: without --json the answer is
// streamed, then its footnotes: the query's with the documents it summed;
// in the same thread, continued with --thread, a passage's `[n] name p.N
// "quote"` and a marker that cites nothing flagged. The thread and how to
// continue it go to stderr.
func TestAskStreamsTheAnswerAndItsFootnotes(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data, _ := askData(t, srv)
	const sum = "SELECT round(sum(total), 2) AS spent FROM invoice"
	sumModel(t, srv, sum)

	code, out, errOut := docent(t, data, "ask", "how much did I spend in total?")
	if code != ExitOK {
		t.Fatalf("ask: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	db := openData(t, data)
	threads, err := db.ListThreads(context.Background(), "")
	if err != nil || len(threads) != 1 {
		t.Fatalf("library threads %+v, %v", threads, err)
	}
	threadID := threads[0].ID
	sources := storedCitations(t, db, threadID)[0].Sources
	var names []string
	for _, s := range sources {
		names = append(names, s.Document)
	}
	want := "You spent 602.95 in total [1].\n\n[1] query: " + sum + " → 1 row; from 3 rows: " + strings.Join(names, ", ") + "\n"
	if out != want || len(names) != 3 {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(errOut, "→ query_data") ||
		!strings.HasSuffix(errOut, "thread: "+threadID+"  (continue with: docent ask --thread "+threadID+" \"…\")\n") {
		t.Errorf("stderr %q", errOut)
	}

	// A passage: the model searches, and cites the first hit by the
	// number it carried (the thread's second: the query was the first).
	srv.Handle(func(req modeltest.Request) modeltest.Reply {
		var last struct{ Role string }
		json.Unmarshal(req.Messages[len(req.Messages)-1], &last)
		if last.Role != "tool" {
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "search_docs", Arguments: `{"query":"Glacier","by":"words"}`}}}
		}
		var res struct {
			Hits []struct {
				Cite int `json:"cite"`
			} `json:"hits"`
		}
		lastToolResult(t, req, &res)
		if len(res.Hits) == 0 {
			return modeltest.Reply{Text: "I could not find it."}
		}
		return modeltest.Reply{Text: fmt.Sprintf("Amazon Glacier is on the AWS invoice [%d], as the lost receipt says [9].", res.Hits[0].Cite)}
	})
	code, out, errOut = docent(t, data, "ask", "where is Glacier billed?", "--thread", threadID)
	if code != ExitOK {
		t.Fatalf("ask --thread: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	answer, notes, ok := strings.Cut(out, "\n\n")
	if !ok || answer != "Amazon Glacier is on the AWS invoice [2], as the lost receipt says [9]." {
		t.Fatalf("stdout:\n%s", out)
	}
	cited := storedCitations(t, db, threadID)
	if len(cited) != 1 || cited[0].N != 2 || cited[0].Kind != agent.CitePassage {
		t.Fatalf("the stored answer cites %+v", cited)
	}
	p := cited[0]
	passage := regexp.MustCompile(`^\[2\] AmazonWebServices\.pdf p\.1 "(.+)"$`)
	lines := strings.Split(strings.TrimSuffix(notes, "\n"), "\n")
	if len(lines) != 2 || !passage.MatchString(lines[0]) || lines[1] != "[9] cites nothing the thread produced" {
		t.Fatalf("footnotes:\n%s", notes)
	}
	if q := passage.FindStringSubmatch(lines[0])[1]; p.Document != "AmazonWebServices.pdf" || p.Page != 1 ||
		q != strings.Join(strings.Fields(p.Quote), " ") || !strings.Contains(q, "Glacier") {
		t.Errorf("the passage's footnote quotes %q; the citation %+v", q, p)
	}
	if !strings.Contains(errOut, "→ search_docs") || !strings.Contains(errOut, "continue with: docent ask --thread "+threadID) {
		t.Errorf("stderr %q", errOut)
	}
	if threads, _ := db.ListThreads(context.Background(), ""); len(threads) != 1 {
		t.Errorf("--thread made another thread: %+v", threads)
	}

	// The questions asked are listed and shown as a document's
	// conversations are, and none of them is a document's.
	code, out, errOut = docent(t, data, "threads", "--ask")
	if code != ExitOK || !strings.Contains(out, threadID) || !strings.Contains(out, "how much did I spend in total?") {
		t.Errorf("threads --ask: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = docent(t, data, "threads", "--ask", threadID)
	if code != ExitOK || !strings.Contains(out, "you: where is Glacier billed?") || !strings.Contains(out, "assistant: Amazon Glacier is on the AWS invoice [2]") {
		t.Errorf("threads --ask %s: exit %d\nstdout: %s\nstderr: %s", threadID, code, out, errOut)
	}
	code, out, errOut = docent(t, data, "threads", "AmazonWebServices.pdf", threadID)
	if code == ExitOK {
		t.Errorf("an Ask thread shown as a document's: %s", out)
	}
}

// storedCitations are the citations the last answer of a thread stored.
func storedCitations(t *testing.T, db *storage.DB, threadID string) []agent.Citation {
	t.Helper()
	msgs, err := db.ThreadMessages(context.Background(), threadID)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("thread %s: %d messages, %v", threadID, len(msgs), err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != storage.RoleAssistant {
		t.Fatalf("the thread ends with a %s message", last.Role)
	}
	return agent.ParseMessageData(last.Data).Citations
}

// TestAskRefusesBadInput: an empty question, a missing one, one over
// 100,000 characters, an unknown thread, a document's thread and no model
// set each exit non-zero with a clear message, print nothing on stdout,
// call no model and store nothing.
func TestAskRefusesBadInput(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := importNote(t)
	db := openData(t, data)
	ctx := context.Background()
	doc, err := db.FindDocument(ctx, "note.txt")
	if err != nil {
		t.Fatal(err)
	}
	docThread, err := db.CreateThread(ctx, doc.ID, "About the note", "")
	if err != nil {
		t.Fatal(err)
	}
	check := func(args []string, status int, want string) {
		t.Helper()
		code, out, errOut := docent(t, data, args...)
		if code != status || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("docent %.80q: exit %d, stdout %q, stderr %q; want exit %d saying %q", args, code, out, errOut, status, want)
		}
	}
	long := strings.Repeat("x", agent.MaxMessageChars+1)
	for _, asJSON := range []bool{false, true} {
		more := []string{}
		if asJSON {
			more = []string{"--json"}
		}
		check(append([]string{"ask", " "}, more...), ExitFailure, "the question is empty")
		check(append([]string{"ask"}, more...), ExitUsage, "ask needs one question")
		check(append([]string{"ask", long}, more...), ExitFailure, "the limit is "+textfmt.Thousands(agent.MaxMessageChars))
		check(append([]string{"ask", "hi", "--thread", "thr_01ZZZZZZZZZZZZZZZZZZZZZZZZ"}, more...), ExitFailure, "thr_01ZZZZZZZZZZZZZZZZZZZZZZZZ")
		check(append([]string{"ask", "hi", "--thread", docThread.ID}, more...), ExitFailure, docThread.ID)
	}

	// No model: none set, and no Ollama to adopt one from.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	t.Setenv("OLLAMA_HOST", "http://"+closed)
	t.Setenv("DOCENT_MODEL", "")
	check([]string{"ask", "how much did I spend?"}, ExitFailure, "no model is set")
	check([]string{"ask", "how much did I spend?", "--json"}, ExitFailure, "no model is set")

	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
	if threads, err := db.ListThreads(ctx, ""); err != nil || len(threads) != 0 {
		t.Errorf("refused questions left library threads %+v (%v)", threads, err)
	}
	if msgs, err := db.ThreadMessages(ctx, docThread.ID); err != nil || len(msgs) != 0 {
		t.Errorf("the document's thread: %d messages, %v", len(msgs), err)
	}
}

// TestChatAnswerEndsWithFootnotes: a document chat's answer cites what its
// tools found as Ask's does, and `docent chat` prints the same footnotes
// after it, before its closing line.
func TestChatAnswerEndsWithFootnotes(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := importNote(t)
	srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "search_docs", Arguments: `{"query":"short note","by":"words"}`}}},
		modeltest.Reply{Text: "It is a short note [1]; see also [4]."},
	)
	code, out, errOut := docent(t, data, "chat", "note.txt", "what is this?")
	want := "It is a short note [1]; see also [4].\n\n" +
		`[1] note.txt p.1 "A short note."` + "\n" +
		"[4] cites nothing the thread produced\n"
	if code != ExitOK || out != want {
		t.Errorf("chat: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, out, want, errOut)
	}
	if !strings.Contains(errOut, "— thread thr_") || strings.Contains(errOut, "docent ask") {
		t.Errorf("chat's closing line: %q", errOut)
	}
}
