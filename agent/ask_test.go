package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// corpusInvoice is an invoice of the shared corpus (invoice2data) with the
// values its ground truth gives: its text as the PDF reader gives it, and
// its vendor and total.
type corpusInvoice struct {
	name   string
	pages  []string
	vendor string
	total  float64
}

var corpusInvoices = []corpusInvoice{
	{"AmazonWebServices.pdf", []string{
		"Amazon Web Services, Inc.\nInvoice\nInvoice Number: 42183017\nInvoice Date: August 3, 2014\n" +
			"Detail            Amount\nAWS Data Transfer        $0.01\nAmazon Elastic Compute Cloud   $1.87\n",
		"Amazon Glacier   $2.22\nAmazon Simple Storage Service   $0.01\nTotal amount due (USD)   $4.11\naws.amazon.com\n",
	}, "Amazon Web Services", 4.11},
	{"FlipkartInvoice.pdf", []string{"Flipkart\nInvoice No: #BLR_WFLD20151000982590\nOrder ID: OD304175096047380001\nInvoice Date: 20-10-2015\nTotal 319.00\n"}, "Flipkart", 319.0},
	{"NetpresseInvoice.pdf", []string{"Netpresse\nFacture 2016-07-11\nMontant total TTC 12,50 €\n"}, "Netpresse", 12.5},
}

// pageWords lays a page's text out as positioned words, a line every 20
// units, so that a quote found in it has a box.
func pageWords(text string) storage.PageWords {
	pw := storage.PageWords{Width: 1000, Height: 1000}
	for y, line := range strings.Split(text, "\n") {
		x := 10
		for _, w := range strings.Fields(line) {
			pw.Words = append(pw.Words, storage.Word{X: x, Y: 10 + y*20, W: 8 * len(w), H: 12, Conf: 1, Text: w})
			x += 8*len(w) + 8
		}
	}
	return pw
}

// libraryFixture is a turn fixture with the corpus invoices imported,
// their page words stored and extracted (schema Invoice) with their known
// values and evidence grounded in their words.
type libraryFixture struct {
	*turnFixture
	docs map[string]storage.Document
	exts map[string]storage.Extraction
}

func newLibraryFixture(t *testing.T, models ...modeltest.Model) *libraryFixture {
	t.Helper()
	ctx := context.Background()
	f := &libraryFixture{turnFixture: newTurnFixture(t, models...), docs: map[string]storage.Document{}, exts: map[string]storage.Extraction{}}
	s, err := f.db.CreateSchema(ctx, "Invoice", json.RawMessage(`{"type":"object","properties":{"vendor":{"type":"string"},"total":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "invoices", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range corpusInvoices {
		d, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: inv.name, MediaType: "application/pdf",
			Data: []byte("%PDF " + inv.name), Pages: inv.pages})
		if err != nil {
			t.Fatal(err)
		}
		words := map[int]storage.PageWords{}
		for i, text := range inv.pages {
			words[i+1] = pageWords(text)
		}
		if err := f.db.SetPageWords(ctx, d.ID, words); err != nil {
			t.Fatal(err)
		}
		x, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: d.ID, PromptRevID: p.PromptRevID, Model: "m",
			Value: json.RawMessage(fmt.Sprintf(`{"vendor":%q,"total":%v}`, inv.vendor, inv.total))})
		if err != nil {
			t.Fatal(err)
		}
		if x, err = agent.GroundExtraction(ctx, f.db, x); err != nil {
			t.Fatal(err)
		}
		f.docs[inv.name], f.exts[inv.name] = d, x
	}
	return f
}

// ask runs an Ask turn, checks its events and returns the result and events.
func (f *libraryFixture) ask(t *testing.T, req agent.AskRequest) (agent.TurnResult, []agent.Event) {
	t.Helper()
	var rec eventcheck.Recorder
	res, err := f.agent.Ask(context.Background(), req, &rec)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("events: %v\n%s", err, dumpEvents(rec.Events()))
	}
	return res, rec.Events()
}

func queryCall(id, sql string) modeltest.ToolCall {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return modeltest.ToolCall{ID: id, Name: "query_data", Arguments: string(args)}
}

// lastAssistantData is the data of a thread's last message, an answer.
func lastAssistantData(t *testing.T, db *storage.DB, threadID string) agent.MessageData {
	t.Helper()
	msgs, err := db.ThreadMessages(context.Background(), threadID)
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	if last.Role != storage.RoleAssistant {
		t.Fatalf("last message is %s", last.Role)
	}
	return agent.ParseMessageData(last.Data)
}

// "How much did I spend in total?": the model asks SQLite for the sum,
// and the answer's [1] is the query, listing every invoice it summed with
// its document and the evidence of the total.
func TestAskSumsWithQueryDataAndCitesEveryRowSummed(t *testing.T) {
	f := newLibraryFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{queryCall("q1", "SELECT sum(total) AS spent FROM invoice")}})
	f.srv.Enqueue(modeltest.Reply{Text: "You spent 335.61 in total [1]."})
	res, evs := f.ask(t, agent.AskRequest{Message: "how much did I spend in total?"})

	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 1 || !results[0].Success {
		t.Fatalf("tool results: %s", dumpEvents(results))
	}
	if want := `{"columns":["spent"],"rows":[[335.61]],"row_count":1,"cite":1}`; string(results[0].Result) != want {
		t.Errorf("query_data result %s, want %s (SQLite's sum, cite 1)", results[0].Result, want)
	}
	if res.ThreadID == "" || res.Text != "You spent 335.61 in total [1]." || len(res.UnknownCitations) != 0 {
		t.Fatalf("result: %+v", res)
	}
	if len(res.Citations) != 1 {
		t.Fatalf("citations: %+v", res.Citations)
	}
	c := res.Citations[0]
	if c.N != 1 || c.Kind != agent.CiteQuery || c.SQL != "SELECT sum(total) AS spent FROM invoice" || c.RowCount != 1 ||
		!reflect.DeepEqual(c.Columns, []string{"spent"}) || fmt.Sprint(c.Rows) != "[[335.61]]" || c.SourcesNote != "" {
		t.Errorf("citation: %+v", c)
	}
	var docs []string
	for _, s := range c.Sources {
		docs = append(docs, s.Document)
		inv := f.docs[s.Document]
		if s.View != "invoice" || s.DocumentID != inv.ID || s.ExtractionID != f.exts[s.Document].ID {
			t.Errorf("source %+v: want the invoice view's row of %s", s, s.Document)
		}
		ev, ok := s.Evidence["total"]
		if !ok || ev.Page == 0 || len(ev.BBox) != 4 {
			t.Errorf("source %s: evidence of total %+v, want its page and box", s.Document, s.Evidence)
		}
		if _, ok := s.Evidence["vendor"]; ok {
			t.Errorf("source %s: evidence of vendor, which the query did not use", s.Document)
		}
	}
	slices.Sort(docs)
	if want := []string{"AmazonWebServices.pdf", "FlipkartInvoice.pdf", "NetpresseInvoice.pdf"}; !reflect.DeepEqual(docs, want) {
		t.Errorf("sources %v, want every invoice summed %v", docs, want)
	}
	// The done event carries them, and so does the stored answer.
	done := agent.PayloadsOf[agent.DonePayload](evs)
	if len(done) != 1 || !reflect.DeepEqual(done[0].Result.Citations, res.Citations) {
		t.Errorf("done event's citations: %s", dumpEvents(done))
	}
	if d := lastAssistantData(t, f.db, res.ThreadID); !reflect.DeepEqual(d.Citations, res.Citations) {
		t.Errorf("stored answer's citations %+v", d.Citations)
	}
	// A library thread, with only read-only tools offered to the model.
	if _, err := f.db.GetThread(context.Background(), "", res.ThreadID); err != nil {
		t.Errorf("library thread: %v", err)
	}
	var offered []string
	for _, raw := range f.srv.Requests()[0].Tools {
		var tool struct {
			Function struct{ Name string } `json:"function"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		offered = append(offered, tool.Function.Name)
	}
	slices.Sort(offered)
	if want := []string{"describe_data", "get_document", "list_documents", "open_citation", "query_data", "search_docs"}; !reflect.DeepEqual(offered, want) {
		t.Errorf("tools offered %v, want %v", offered, want)
	}
}

// A passage answer cites page and quote, with the quote's box; a thread
// continued in a second turn numbers on from the first, after a restart
// of the agent too (the numbers come from the stored messages), and a
// marker the thread never produced is flagged.
func TestAskCitesPassagesAndNumbersAcrossTurns(t *testing.T) {
	f := newLibraryFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "search_docs", Arguments: `{"query":"Glacier","by":"words"}`}}})
	f.srv.Enqueue(modeltest.Reply{Text: "Amazon Glacier cost $2.22 [1]."})
	first, evs := f.ask(t, agent.AskRequest{Message: "what did Glacier cost?"})
	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	var hits struct {
		Hits []struct {
			Cite int `json:"cite"`
			Page int `json:"page"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(results[0].Result, &hits); err != nil || len(hits.Hits) != 1 || hits.Hits[0].Cite != 1 {
		t.Fatalf("search result %s: want one hit with cite 1", results[0].Result)
	}
	if len(first.Citations) != 1 {
		t.Fatalf("citations %+v", first.Citations)
	}
	c := first.Citations[0]
	if c.Kind != agent.CitePassage || c.Document != "AmazonWebServices.pdf" || c.DocumentID != f.docs["AmazonWebServices.pdf"].ID ||
		c.Page != 2 || !strings.Contains(c.Quote, "Amazon Glacier $2.22") || strings.ContainsAny(c.Quote, "«»") || len(c.BBox) != 4 {
		t.Errorf("passage citation %+v", c)
	}

	// A second turn, by a new agent on the same store: numbering goes on.
	f.agent = &agent.Agent{DB: f.db, Providers: f.agent.Providers, DefaultModel: f.agent.DefaultModel}
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{
		{ID: "o1", Name: "open_citation", Arguments: fmt.Sprintf(`{"document_id":%q,"chunk_id":%d}`, f.docs["AmazonWebServices.pdf"].ID, firstChunk(t, f))},
		queryCall("q1", "SELECT count(*) FROM invoice WHERE total > 10"),
	}})
	f.srv.Enqueue(modeltest.Reply{Text: "Two invoices were over 10 [3], see also [1][2] and [7, 3]."})
	second, evs := f.ask(t, agent.AskRequest{ThreadID: first.ThreadID, Message: "and how many were over 10?"})
	results = agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 2 || !strings.Contains(string(results[0].Result), `"cite":2`) || !strings.HasSuffix(string(results[1].Result), `"cite":3}`) {
		t.Fatalf("second turn's results: %s", dumpEvents(results))
	}
	var ns []int
	for _, c := range second.Citations {
		ns = append(ns, c.N)
	}
	if !reflect.DeepEqual(ns, []int{1, 2, 3}) || !reflect.DeepEqual(second.UnknownCitations, []int{7}) {
		t.Errorf("cited %v unknown %v; want 1, 2, 3 and 7 flagged", ns, second.UnknownCitations)
	}
	if second.Citations[1].Kind != agent.CitePassage || second.Citations[1].Page != 2 || second.Citations[2].Kind != agent.CiteQuery {
		t.Errorf("citations %+v", second.Citations)
	}
	var sourceDocs []string
	for _, s := range second.Citations[2].Sources {
		sourceDocs = append(sourceDocs, s.Document)
	}
	slices.Sort(sourceDocs)
	if want := []string{"FlipkartInvoice.pdf", "NetpresseInvoice.pdf"}; !reflect.DeepEqual(sourceDocs, want) {
		t.Errorf("count's sources %v, want the rows its WHERE kept %v", sourceDocs, want)
	}
	if d := lastAssistantData(t, f.db, second.ThreadID); !reflect.DeepEqual(d.UnknownCitations, []int{7}) {
		t.Errorf("stored answer's unknown citations %v", d.UnknownCitations)
	}
}

// firstChunk is the id of the AWS invoice's chunk on page 2.
func firstChunk(t *testing.T, f *libraryFixture) int64 {
	t.Helper()
	res, err := f.db.Search(context.Background(), "Glacier", 1)
	if err != nil || len(res) == 0 {
		t.Fatalf("search: %v %v", res, err)
	}
	return res[0].ChunkID
}

// Writes, ATTACH, PRAGMA, a base table and a runaway recursive CTE are
// refused, the model is told why, and neither the store nor its history
// changes.
func TestAskRefusedQueriesChangeNothing(t *testing.T) {
	f := newLibraryFixture(t)
	ctx := context.Background()
	snapshot := func() string {
		var b strings.Builder
		for _, q := range []string{`SELECT document_id, extraction_id, vendor, total FROM invoice ORDER BY document_id`,
			`SELECT document_id, document, extraction_id FROM documents ORDER BY document_id`} {
			r, err := f.db.QueryData(ctx, storage.DataQuery{SQL: q, MaxRows: 100})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, r.Rows)
		}
		journal, err := f.db.ListJournal(ctx, storage.JournalFilter{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, len(journal))
		return b.String()
	}
	before := snapshot()
	refused := map[string]string{
		"DELETE FROM invoice":                        "only SELECT is allowed, not DELETE",
		"ATTACH DATABASE 'x.db' AS x":                "only SELECT is allowed, not ATTACH",
		"SELECT * FROM pragma_table_info('threads')": "not",
		"SELECT * FROM settings":                     "settings is not a data view",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r": "ran longer than",
	}
	var calls []modeltest.ToolCall
	var sqls []string
	for sql := range refused {
		sqls = append(sqls, sql)
	}
	slices.Sort(sqls)
	for i, sql := range sqls {
		calls = append(calls, queryCall(fmt.Sprintf("q%d", i), sql))
	}
	calls = append(calls, modeltest.ToolCall{ID: "w1", Name: "delete_document", Arguments: fmt.Sprintf(`{"document_id":%q}`, f.docs["FlipkartInvoice.pdf"].ID)})
	f.srv.Enqueue(modeltest.Reply{ToolCalls: calls})
	f.srv.Enqueue(modeltest.Reply{Text: "I could not find it."})
	res, evs := f.ask(t, agent.AskRequest{Message: "delete everything"})
	if res.TurnID != "" {
		t.Fatalf("a library turn paused: %+v", res)
	}
	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != len(sqls)+1 {
		t.Fatalf("results: %s", dumpEvents(results))
	}
	for i, sql := range sqls {
		if results[i].Success || !strings.Contains(results[i].Error, refused[sql]) {
			t.Errorf("%s: %+v, want refused with %q", sql, results[i], refused[sql])
		}
	}
	if last := results[len(sqls)]; last.Success || !strings.Contains(last.Error, "delete_document is not available here") {
		t.Errorf("delete_document in a library turn: %+v", last)
	}
	told := toolMessages(t, f.srv.Requests()[1])
	if len(told) != len(sqls)+1 || !strings.Contains(told[0], `"error"`) {
		t.Errorf("the model was told %q", told)
	}
	if after := snapshot(); after != before {
		t.Errorf("store changed:\nbefore %s\nafter  %s", before, after)
	}
}

// Bad input is refused before anything is stored or any model called.
func TestAskRefusesBadInputAndStoresNothing(t *testing.T) {
	f := newLibraryFixture(t)
	ctx := context.Background()
	docThread, err := f.db.CreateThread(ctx, f.doc.ID, "about acme", "")
	if err != nil {
		t.Fatal(err)
	}
	noModel := &agent.Agent{DB: f.db, Providers: f.agent.Providers}
	for _, c := range []struct {
		name string
		a    *agent.Agent
		req  agent.AskRequest
		code fault.Code
		want string
	}{
		{"empty", f.agent, agent.AskRequest{Message: " \n "}, fault.Invalid, "the question is empty"},
		{"too long", f.agent, agent.AskRequest{Message: strings.Repeat("x", agent.MaxMessageChars+1)}, fault.Invalid, "the question is 100,001 characters; the limit is 100,000"},
		{"no model", noModel, agent.AskRequest{Message: "hi"}, fault.Invalid, "no model is set: pass one (e.g. --model ollama/qwen3:8b), set DOCENT_MODEL, or choose a default model on the Settings page"},
		{"unknown thread", f.agent, agent.AskRequest{ThreadID: "thr_nowhere", Message: "hi"}, fault.NotFound, "the library has no thread thr_nowhere"},
		{"a document's thread", f.agent, agent.AskRequest{ThreadID: docThread.ID, Message: "hi"}, fault.NotFound, "the library has no thread " + docThread.ID},
	} {
		var rec eventcheck.Recorder
		_, err := c.a.Ask(ctx, c.req, &rec)
		if fault.ErrorCode(err) != c.code || !strings.HasPrefix(fault.ErrorMessage(err), c.want) {
			t.Errorf("%s: %v (%s), want %s %q", c.name, err, fault.ErrorCode(err), c.code, c.want)
		}
		if len(rec.Events()) != 0 {
			t.Errorf("%s: %d events", c.name, len(rec.Events()))
		}
	}
	if threads, err := f.db.ListThreads(ctx, ""); err != nil || len(threads) != 0 {
		t.Errorf("library threads after bad input: %v %v", threads, err)
	}
	if msgs, _ := f.db.ThreadMessages(ctx, docThread.ID); len(msgs) != 0 {
		t.Errorf("the document's thread got %d messages", len(msgs))
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}

// A model without tools takes them through the text protocol, and the
// numbers its FINAL lists are cited like markers in the text.
func TestAskTextProtocolFinalCitations(t *testing.T) {
	f := newLibraryFixture(t, modeltest.DefaultModel, noTools)
	f.srv.Enqueue(modeltest.Reply{Text: `TOOL_CALL {"tool": "query_data", "input": {"sql": "SELECT sum(total) FROM invoice"}}`})
	f.srv.Enqueue(modeltest.Reply{Text: `FINAL {"answer": "You spent 335.61.", "citations": [1, 4]}`})
	res, _ := f.ask(t, agent.AskRequest{Message: "how much did I spend?", Model: "ollama/gemma3:4b"})
	if res.Text != "You spent 335.61." || len(res.Citations) != 1 || res.Citations[0].Kind != agent.CiteQuery || !reflect.DeepEqual(res.UnknownCitations, []int{4}) {
		t.Errorf("result %+v", res)
	}
	sys := messagesOf(t, f.srv.Requests()[0])[0].Content
	if !strings.Contains(sys, "- query_data (read-only)") || strings.Contains(sys, "delete_document") || !strings.Contains(sys, `"citations"`) {
		t.Errorf("text-mode system message lists the wrong tools or no citations:\n%s", sys)
	}
}
