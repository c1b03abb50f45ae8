package mcp_test

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	docentmcp "github.com/docent/docent/app/mcp"
	"github.com/docent/docent/storage"
)

// TestRunExtractionSaysItStillRuns: while the model answers, a client
// that asked for progress hears that the call started (what it does, in
// words) and then, again and again, that it still runs, each with more
// progress than the last; the result comes after.
func TestRunExtractionSaysItStillRuns(t *testing.T) {
	t.Cleanup(docentmcp.SetProgressEvery(10 * time.Millisecond))
	f := newFixture(t, false)
	ctx := context.Background()
	sch, err := f.db.CreateSchema(ctx, "totals", []byte(`{"type":"json_schema","json_schema":{"name":"totals","schema":{"type":"object","properties":{"total":{"type":"number"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "totals", Content: "Extract the total.", SchemaID: sch.SchemaID}); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	f.models.Enqueue(modeltest.Reply{Text: `{"total": 12.5}`, HoldAfterChunks: 1, Hold: hold})

	notes := make(chan *sdk.ProgressNotificationParams, 64)
	cs := connect(t, func() *agent.Agent { return f.agent }, false, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			select {
			case notes <- r.Params:
			default:
			}
		}})
	p := &sdk.CallToolParams{Name: "run_extraction", Arguments: map[string]any{"document_id": f.doc.ID, "prompt_revid": "totals"}}
	p.SetProgressToken(7)
	type outcome struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, p)
		done <- outcome{res, err}
	}()

	deadline := time.After(30 * time.Second) // against hangs only
	var seen []*sdk.ProgressNotificationParams
	for len(seen) < 3 {
		select {
		case n := <-notes:
			seen = append(seen, n)
		case <-deadline:
			t.Fatalf("%d progress notifications while the model answers", len(seen))
		}
	}
	close(hold) // the model answers
	// In the order they were sent (a client may handle them concurrently).
	slices.SortFunc(seen, func(a, b *sdk.ProgressNotificationParams) int { return cmp.Compare(a.Progress, b.Progress) })
	if seen[0].Progress != 0 || !strings.Contains(seen[0].Message, "totals") {
		t.Errorf("the first notification says %q, not what the call does", seen[0].Message)
	}
	for i, n := range seen[1:] {
		if n.Progress <= seen[i].Progress || !strings.Contains(n.Message, "still running") {
			t.Errorf("notification %d: progress %v after %v, %q", i+1, n.Progress, seen[i].Progress, n.Message)
		}
	}
	select {
	case o := <-done:
		if o.err != nil || o.res.IsError {
			t.Fatalf("run_extraction: %v %+v", o.err, o.res)
		}
	case <-deadline:
		t.Fatal("run_extraction did not return after the model answered")
	}
}
