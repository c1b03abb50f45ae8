package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// extractReceipts stores a receipt schema, its prompt and n documents
// extracted with it, totals 1..n.
func extractReceipts(t *testing.T, db *storage.DB, n int) {
	t.Helper()
	ctx := context.Background()
	s, err := db.CreateSchema(ctx, "Receipt", json.RawMessage(`{"type":"object","properties":{"store":{"type":"string"},"total":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "receipts", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		d, err := db.CreateDocument(ctx, storage.NewDocument{Name: fmt.Sprintf("r%03d.jpg", i), MediaType: "text/plain",
			Data: []byte(fmt.Sprintf("receipt %d", i)), Pages: []string{"receipt"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: d.ID, PromptRevID: p.PromptRevID,
			Value: json.RawMessage(fmt.Sprintf(`{"store":"Spar %d","total":%d}`, i%2, i))}); err != nil {
			t.Fatal(err)
		}
	}
}

// A question across documents is answered in one turn: describe_data,
// then query_data, both read-only, so they run without approval, and the
// model reads SQLite's sum.
func TestTurnAnswersWithQueryData(t *testing.T) {
	f := newTurnFixture(t)
	extractReceipts(t, f.db, 3)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "d1", Name: "describe_data", Arguments: `{}`}}})
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "query_data",
		Arguments: `{"sql":"SELECT store, sum(total) AS spent FROM receipt GROUP BY store ORDER BY store"}`}}})
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q2", Name: "query_data",
		Arguments: `{"sql":"DELETE FROM receipt"}`}}})
	f.srv.Enqueue(modeltest.Reply{Text: "You spent 6."})
	res, evs := f.chat(t, agent.ChatRequest{Message: "how much did I spend per store?"})
	if res.TurnID != "" || res.Text != "You spent 6." {
		t.Fatalf("turn paused (%q) or did not answer (%q); read-only calls need no approval", res.TurnID, res.Text)
	}
	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 3 || !results[0].Success || !results[1].Success || results[2].Success {
		t.Fatalf("tool results = %s", dumpEvents(results))
	}
	if !strings.Contains(string(results[0].Result), `"name":"receipt"`) || !strings.Contains(string(results[0].Result), `"samples":["Spar 1","Spar 0"]`) {
		t.Errorf("describe_data: %s", results[0].Result)
	}
	if want := `{"columns":["store","spent"],"rows":[["Spar 0",2],["Spar 1",4]],"row_count":2,"cite":1}`; string(results[1].Result) != want {
		t.Errorf("query_data: %s, want %s", results[1].Result, want)
	}
	if !strings.Contains(results[2].Error, "only SELECT is allowed, not DELETE") {
		t.Errorf("a DELETE: %q, want it refused", results[2].Error)
	}
	if n, err := f.db.QueryData(context.Background(), storage.DataQuery{SQL: `SELECT count(*) FROM receipt`, MaxRows: 1}); err != nil || n.Rows[0][0] != int64(3) {
		t.Errorf("receipts after the turn: %+v %v", n, err)
	}
}

// A result of many rows keeps whole rows within the result cap and says
// how many there were.
func TestQueryDataResultFitsTheCap(t *testing.T) {
	f := newTurnFixture(t)
	extractReceipts(t, f.db, 150)
	env := &agent.ToolEnv{DB: f.db, DocumentID: f.doc.ID}
	r := agent.CallTool(context.Background(), env, "query_data", json.RawMessage(`{"sql":"SELECT document, store, total, printf('%.300c', 'x') AS padding FROM receipt"}`))
	if !r.Success {
		t.Fatalf("query_data: %s", r.Error)
	}
	var res storage.DataResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("result is not a DataResult (cut?): %v: %.200s", err, r.Result)
	}
	if res.RowCount != 150 || !res.Truncated || len(res.Rows) == 0 || len(res.Rows) >= 100 || len(r.Result) > agent.ResultCap {
		t.Errorf("%d of %d rows, truncated %v, %d bytes; want some whole rows of 150 within %d", len(res.Rows), res.RowCount, res.Truncated, len(r.Result), agent.ResultCap)
	}
	if got := agent.ResultWords("query_data", r.Result); got != fmt.Sprintf("%d of 150 rows", len(res.Rows)) {
		t.Errorf("result words %q", got)
	}
}
