package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// askInvoices extracts the fixture's document and one more with an
// Invoice schema (totals 12.5 and 30.25) and returns the extractions by
// document name.
func askInvoices(t *testing.T, f *fixture) map[string]storage.Extraction {
	t.Helper()
	ctx := t.Context()
	s, err := f.db.CreateSchema(ctx, "Invoice", json.RawMessage(invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "invoices", Content: "Extract the invoice.", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	beta, err := f.db.CreateDocument(ctx, storage.NewDocument{
		Name: "beta.txt", MediaType: "text/plain", Data: []byte("Beta invoice B-7"),
		Pages: []string{"Beta GmbH\nInvoice B-7\nTotal: 30.25 EUR\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]storage.Extraction{}
	for _, d := range []struct {
		doc   storage.Document
		value string
	}{{f.doc, `{"invoice_number":"A-1","total":12.5}`}, {beta, `{"invoice_number":"B-7","total":30.25}`}} {
		x, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: d.doc.ID, PromptRevID: p.PromptRevID, Value: json.RawMessage(d.value)})
		if err != nil {
			t.Fatal(err)
		}
		out[d.doc.Name] = x
	}
	return out
}

// TestAskStreamsACitedAnswerAndKeepsALibraryThread: a streamed Ask turn in
// which the scripted model sums the invoices with query_data and cites
// it; its done event carries the query's citation with the rows it read.
// A second turn, not streamed, continues the thread, which keeps what
// both answers cited.
func TestAskStreamsACitedAnswerAndKeepsALibraryThread(t *testing.T) {
	f := newFixture(t)
	exts := askInvoices(t, f)
	const sum = "SELECT sum(total) AS spent FROM invoice"
	f.model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "query_data", Arguments: `{"sql":"` + sum + `"}`}}},
		modeltest.Reply{Text: "You spent 42.75 in total [1]."},
	)
	raw, evs := f.stream("/api/ask", map[string]any{"message": "How much did I spend?", "stream": true})
	threadID := evs[0].Payload.(agent.TurnStartedPayload).ThreadID
	done, ok := evs[len(evs)-1].Payload.(agent.DonePayload)
	if !ok || threadID == "" || done.Result.ThreadID != threadID || done.Result.Text != "You spent 42.75 in total [1]." {
		t.Fatalf("the turn ended with %+v (thread %q)\n%s", evs[len(evs)-1], threadID, raw)
	}
	res := done.Result
	if len(res.Citations) != 1 || len(res.UnknownCitations) != 0 {
		t.Fatalf("citations %+v, unknown %v; want the query alone", res.Citations, res.UnknownCitations)
	}
	c := res.Citations[0]
	if c.N != 1 || c.Kind != agent.CiteQuery || c.SQL != sum || c.RowCount != 1 ||
		len(c.Rows) != 1 || len(c.Rows[0]) != 1 || c.Rows[0][0] != 42.75 || !slices.Equal(c.Columns, []string{"spent"}) {
		t.Errorf("the query's citation %+v", c)
	}
	var read []string
	for _, src := range c.Sources {
		if src.View != "invoice" || src.ExtractionID != exts[src.Document].ID || src.DocumentID != exts[src.Document].DocumentID {
			t.Errorf("cited row %+v; want a row of view invoice with its document's extraction", src)
		}
		read = append(read, src.Document)
	}
	if slices.Sort(read); !slices.Equal(read, []string{"acme.txt", "beta.txt"}) {
		t.Errorf("the sum's citation lists the rows of %v, want both invoices", read)
	}

	// The thread goes on, answered as one result object; its numbers run
	// across turns, and a number it never produced is flagged.
	f.model.Enqueue(modeltest.Reply{Text: "Still 42.75 [1]; see [7]."})
	var next agent.TurnResult
	f.call("POST", "/api/ask", map[string]any{"message": "Say it again", "thread_id": threadID}, http.StatusOK, &next)
	if next.ThreadID != threadID || len(next.Citations) != 1 || next.Citations[0].N != 1 ||
		next.Citations[0].Kind != agent.CiteQuery || !slices.Equal(next.UnknownCitations, []int{7}) {
		t.Errorf("the second turn: thread %s, citations %+v, unknown %v", next.ThreadID, next.Citations, next.UnknownCitations)
	}

	var th server.ThreadWithMessages
	f.call("GET", "/api/ask/threads/"+threadID, nil, http.StatusOK, &th)
	roles := []string{}
	for _, m := range th.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,assistant,user,assistant" {
		t.Fatalf("the thread's messages are %s", got)
	}
	// A reopened thread shows what the live turn showed.
	var data struct {
		Citations        []agent.Citation `json:"citations"`
		UnknownCitations []int            `json:"unknown_citations"`
	}
	if err := json.Unmarshal(th.Messages[5].Data, &data); err != nil || len(data.Citations) != 1 || data.Citations[0].SQL != sum || !slices.Equal(data.UnknownCitations, []int{7}) {
		t.Errorf("the stored answer's data %s (%v)", th.Messages[5].Data, err)
	}
}

// TestAskRefusedBeforeItsFirstEvent: a turn the agent refuses before it
// starts is an ordinary error answer even with stream: true, the model is
// not called and nothing is stored.
func TestAskRefusedBeforeItsFirstEvent(t *testing.T) {
	f := newFixture(t)
	docThread, err := f.db.CreateThread(t.Context(), f.doc.ID, "About acme", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"empty question", map[string]any{"message": " \n", "stream": true}, http.StatusBadRequest, "invalid"},
		{"question too long", map[string]any{"message": strings.Repeat("x", agent.MaxMessageChars+1), "stream": true}, http.StatusBadRequest, "invalid"},
		{"unknown thread", map[string]any{"message": "hi", "thread_id": "thr_01ZZZZZZZZZZZZZZZZZZZZZZZZ", "stream": true}, http.StatusNotFound, "not_found"},
		{"a document's thread", map[string]any{"message": "hi", "thread_id": docThread.ID, "stream": true}, http.StatusNotFound, "not_found"},
		{"unknown field", map[string]any{"message": "hi", "mentions": []any{}}, http.StatusBadRequest, "invalid"},
		{"no body", "", http.StatusBadRequest, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.wantError("POST", "/api/ask", tc.body, tc.status, tc.code)
		})
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
	var list struct{ Threads []storage.Thread }
	f.call("GET", "/api/ask/threads", nil, http.StatusOK, &list)
	if len(list.Threads) != 0 {
		t.Errorf("refused turns left threads %+v", list.Threads)
	}
	if msgs, err := f.db.ThreadMessages(t.Context(), docThread.ID); err != nil || len(msgs) != 0 {
		t.Errorf("the document's thread: %d messages, %v", len(msgs), err)
	}
}

// TestAskWithoutAModel: no model set is said, before anything is stored.
func TestAskWithoutAModel(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.Agent.DefaultModel = "" })
	msg := f.wantError("POST", "/api/ask", map[string]any{"message": "How much did I spend?", "stream": true}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "no model is set") {
		t.Errorf("the refusal says %q", msg)
	}
	if b := f.call("GET", "/api/ask/threads", nil, http.StatusOK, nil); string(b) != `{"threads":[]}`+"\n" {
		t.Errorf("library threads after the refusal: %s", b)
	}
}
