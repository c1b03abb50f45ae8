package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// roundsOf lists the round_index of the events of one type.
func roundsOf(evs []agent.Event, typ agent.EventType) []int {
	var out []int
	for _, e := range eventsOf(evs, typ) {
		r, _ := e.Round()
		out = append(out, r)
	}
	return out
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTurnApproveAfterRestart(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema"})
	if !res.Paused() {
		t.Fatalf("result %+v", res)
	}

	// Restart: close the store, reopen the same file, build a new Agent.
	path := f.db.Path()
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := f.agent.Providers
	f.db = db
	f.agent = &agent.Agent{DB: db, Providers: reg, Extractor: &agent.Extractor{DB: db, Providers: reg}, DefaultModel: "ollama/qwen3:8b"}

	if p, err := f.agent.Pending(ctx, res.TurnID); err != nil || p.DocumentID != f.doc.ID || len(p.NeedsApproval) != 1 {
		t.Fatalf("pending after restart %+v, %v", p, err)
	}
	f.srv.Enqueue(modeltest.Reply{Text: "Created."})
	res2, evs := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
	if res2.Text != "Created." || res2.ThreadID != res.ThreadID {
		t.Fatalf("approve result %+v", res2)
	}
	if rs := agent.PayloadsOf[agent.ToolResultPayload](evs); len(rs) != 1 || !rs[0].Success {
		t.Fatalf("results %+v", rs)
	}
	rev, err := db.FindSchema(ctx, "receipt")
	if err != nil {
		t.Fatalf("schema not created after restart: %v", err)
	}
	if res2.WorkingState.SchemaRevID != rev.SchemaRevID {
		t.Errorf("working state %+v, schema %s", res2.WorkingState, rev.SchemaRevID)
	}
}

func TestTurnApproveExpired(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, _ := f.chat(t, agent.ChatRequest{Message: "make a receipt schema"})
	n := len(f.srv.Requests())

	f.db.Now = func() time.Time { return time.Now().Add(time.Hour) }
	f.srv.Enqueue(modeltest.Reply{Text: "should not be asked"})
	var rec eventcheck.Recorder
	_, err := f.agent.Approve(ctx, agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: res.TurnID,
		Approvals: []agent.Approval{{CallID: "c1", Approved: true}}}, &rec)
	if err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("approve of an expired turn: %v", err)
	}
	if len(rec.Events()) != 0 {
		t.Errorf("expired approve emitted events:\n%s", dumpEvents(rec.Events()))
	}
	if got := len(f.srv.Requests()); got != n {
		t.Errorf("%d model requests after the pause", got-n)
	}
	if _, err := f.db.FindSchema(ctx, "receipt"); err == nil {
		t.Error("an expired turn's call ran")
	}
}

func TestTurnApproveUnknownTurn(t *testing.T) {
	f := newTurnFixture(t)
	var rec eventcheck.Recorder
	_, err := f.agent.Approve(context.Background(), agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: "turn_nosuchturn",
		Approvals: []agent.Approval{{CallID: "c1", Approved: true}}}, &rec)
	if err == nil {
		t.Fatal("unknown turn approved")
	}
	if fault.ErrorCode(err) != "not_found" || !strings.Contains(err.Error(), "turn_nosuchturn") {
		t.Errorf("error %q (code %q) does not name the unknown turn", err, fault.ErrorCode(err))
	}
	if len(rec.Events()) != 0 || len(f.srv.Requests()) != 0 {
		t.Errorf("%d events, %d model requests", len(rec.Events()), len(f.srv.Requests()))
	}
}

func TestTurnToolErrorThenSelfCorrection(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "o1", Name: "get_ocr_text", Arguments: `{"page_num":99}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "o2", Name: "get_ocr_text", Arguments: `{"page_num":1}`}}},
		modeltest.Reply{Text: "It is from ACME Corporation."},
	)
	res, evs := f.chat(t, agent.ChatRequest{Message: "who sent it?"})
	if res.Text != "It is from ACME Corporation." || len(res.ExecutedRounds) != 2 {
		t.Fatalf("result %+v", res)
	}
	rs := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(rs) != 2 || rs[0].Success || !strings.Contains(rs[0].Error, "1-2") || !rs[1].Success {
		t.Fatalf("results %+v", rs)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	tm := toolMessages(t, reqs[1])
	if len(tm) != 1 || !strings.Contains(tm[0], "page 99 out of range") || !strings.Contains(tm[0], "1-2") {
		t.Errorf("second request's tool messages %q", tm)
	}
	if tm := toolMessages(t, reqs[2]); len(tm) != 2 || !strings.Contains(tm[1], "ACME Corporation") {
		t.Errorf("third request's tool messages %q", tm)
	}
}

func TestTurnApproveContinuesSeveralRounds(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema and check the document"})
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "g1", Name: "get_document", Arguments: `{}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "o1", Name: "get_ocr_text", Arguments: `{"page_num":2}`}}},
		modeltest.Reply{Text: "Schema created; the total is 12.50 EUR."},
	)
	res2, evs := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
	if res2.Text != "Schema created; the total is 12.50 EUR." || res2.Paused() {
		t.Fatalf("result %+v", res2)
	}
	if got := roundsOf(evs, agent.EventRoundExecuted); !sameInts(got, []int{0, 1, 2}) {
		t.Errorf("round_executed rounds %v, want [0 1 2]", got)
	}
	if got := roundsOf(evs, agent.EventTextDone); !sameInts(got, []int{1, 2, 3}) {
		t.Errorf("assistant_text_done rounds %v, want [1 2 3]", got)
	}
	var idx []int
	for _, r := range res2.ExecutedRounds {
		idx = append(idx, r.RoundIndex)
	}
	if !sameInts(idx, []int{0, 1, 2}) {
		t.Errorf("executed rounds %v", idx)
	}
	if rs := agent.PayloadsOf[agent.ToolResultPayload](evs); len(rs) != 3 || !rs[0].Success || !rs[1].Success || !rs[2].Success {
		t.Fatalf("results %+v", rs)
	}
	if n := len(f.srv.Requests()); n != 4 {
		t.Errorf("%d model requests, want 4", n)
	}
}

func TestTurnWorkingStateAcrossTurns(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "p1", Name: "create_prompt",
			Arguments: `{"name":"receipt totals","content":"Extract the total.","schema_id":"receipt","model":"ollama/qwen3:8b"}`}}},
		modeltest.Reply{Text: "Created a schema and a prompt."},
	)
	res, _ := f.chat(t, agent.ChatRequest{Message: "make a receipt schema and a prompt", AutoApprove: true})
	prompt, err := f.db.FindPrompt(ctx, "receipt totals")
	if err != nil {
		t.Fatalf("prompt not created: %v", err)
	}
	if res.WorkingState.PromptRevID != prompt.PromptRevID {
		t.Fatalf("turn 1 working state %+v, prompt %s", res.WorkingState, prompt.PromptRevID)
	}

	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "x1", Name: "run_extraction", Arguments: `{}`}}},
		modeltest.Reply{Text: `{"total": 12.5}`}, // the extraction's own model call
		modeltest.Reply{Text: "The total is 12.5."},
	)
	res2, evs := f.chat(t, agent.ChatRequest{ThreadID: res.ThreadID, Message: "run extraction with that prompt", AutoApprove: true})
	if res2.Text != "The total is 12.5." {
		t.Fatalf("result %+v", res2)
	}
	if rs := agent.PayloadsOf[agent.ToolResultPayload](evs); len(rs) != 1 || !rs[0].Success {
		t.Fatalf("results %+v", rs)
	}
	x, err := f.db.LatestExtraction(ctx, f.doc.ID, prompt.PromptRevID)
	if err != nil {
		t.Fatalf("no extraction for prompt revision %s: %v", prompt.PromptRevID, err)
	}
	if x.PromptRevID != prompt.PromptRevID || !strings.Contains(string(x.Value), "12.5") {
		t.Errorf("extraction %+v", x)
	}
	if ws := res2.WorkingState; ws.Extraction == nil || ws.Extraction.ID != x.ID || ws.PromptRevID != prompt.PromptRevID {
		t.Errorf("turn 2 working state %+v", ws)
	}
}

// sentMessage is a chat message as either wire sends it.
type sentMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Thinking   string `json:"thinking"`
	ToolCallID string `json:"tool_call_id"`
	ToolName   string `json:"tool_name"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// checkAlternation reports a history in which an assistant's tool calls are
// not answered, in order, by the tool messages right after it, or a tool
// message answers no call.
func checkAlternation(msgs []sentMessage) string {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case "tool":
			return "tool message " + strconv.Itoa(i) + " answers no call"
		case "assistant":
			for j, c := range m.ToolCalls {
				k := i + 1 + j
				if k >= len(msgs) || msgs[k].Role != "tool" {
					return "call " + strconv.Itoa(j) + " of message " + strconv.Itoa(i) + " (" + c.Function.Name + ") has no result"
				}
				r := msgs[k]
				if c.ID != "" && r.ToolCallID != "" && c.ID != r.ToolCallID {
					return "message " + strconv.Itoa(k) + " answers " + r.ToolCallID + ", want " + c.ID
				}
				if r.ToolName != "" && r.ToolName != c.Function.Name {
					return "message " + strconv.Itoa(k) + " is from " + r.ToolName + ", want " + c.Function.Name
				}
			}
			i += len(m.ToolCalls)
		}
	}
	return ""
}

func TestTurnThinkingKeptThroughReload(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		ctx := context.Background()
		f.srv.Enqueue(
			modeltest.Reply{Thinking: "I need page 2.", ToolCalls: []modeltest.ToolCall{{ID: "o1", Name: "get_ocr_text", Arguments: `{"page_num":2}`}}},
			modeltest.Reply{Thinking: "The total is on page 2.", Text: "12.50 EUR."},
		)
		res, _ := f.chat(t, agent.ChatRequest{Message: "total?", Model: model})
		stored, err := f.db.ThreadMessages(ctx, res.ThreadID)
		if err != nil || len(stored) != 4 {
			t.Fatalf("thread messages %+v, %v", stored, err)
		}
		if stored[1].Role != storage.RoleAssistant || stored[1].Thinking != "I need page 2." {
			t.Errorf("stored tool-calling message %+v", stored[1])
		}
		if stored[3].Role != storage.RoleAssistant || stored[3].Thinking != "The total is on page 2." || stored[3].Content != "12.50 EUR." {
			t.Errorf("stored answer %+v", stored[3])
		}

		f.srv.Enqueue(modeltest.Reply{Thinking: "Repeat it.", Text: "Still 12.50 EUR."})
		f.chat(t, agent.ChatRequest{ThreadID: res.ThreadID, Message: "again?"})
		reqs := f.srv.Requests()
		last := reqs[len(reqs)-1]
		msgs := make([]sentMessage, len(last.Messages))
		var roles []string
		for i, raw := range last.Messages {
			if err := json.Unmarshal(raw, &msgs[i]); err != nil {
				t.Fatalf("message %d %s: %v", i, raw, err)
			}
			roles = append(roles, msgs[i].Role)
		}
		if got := strings.Join(roles, " "); got != "system user assistant tool assistant user" {
			t.Fatalf("roles %s", got)
		}
		if why := checkAlternation(msgs); why != "" {
			t.Errorf("history after reload: %s\n%s", why, last.Messages)
		}
		if len(msgs[2].ToolCalls) != 1 || msgs[2].ToolCalls[0].Function.Name != "get_ocr_text" {
			t.Errorf("reloaded assistant message %+v", msgs[2])
		}
		if last.Wire == "ollama" && (msgs[2].Thinking != "I need page 2." || msgs[4].Thinking != "The total is on page 2.") {
			t.Errorf("thinking not sent back after reload: %q, %q", msgs[2].Thinking, msgs[4].Thinking)
		}
	})
}

func TestSweepTurnsDeletesExpiredPausedTurns(t *testing.T) {
	f := newTurnFixture(t)
	f.agent.TurnTTL = time.Millisecond
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "Receipt")}})
	res, _ := f.chat(t, agent.ChatRequest{Message: "make a schema"})
	if res.TurnID == "" {
		t.Fatal("the turn did not pause")
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { f.agent.SweepTurns(ctx, 5*time.Millisecond); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Peek, unlike an approve, does not delete: only the sweeper can.
		_, err := f.db.PeekTurnState(context.Background(), res.TurnID)
		if errors.Is(err, storage.ErrNotFound) && strings.Contains(err.Error(), "unknown") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired turn was not swept: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTurnCallLimitsStopARepeatedTool(t *testing.T) {
	f := newTurnFixture(t)
	tag := func(id, name string) modeltest.ToolCall {
		return modeltest.ToolCall{ID: id, Name: "create_tag", Arguments: `{"name":"` + name + `"}`}
	}
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{tag("t1", "one"), tag("t2", "two")}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{tag("t3", "three")}},
		modeltest.Reply{Text: "Done."},
	)
	_, evs := f.chat(t, agent.ChatRequest{Message: "tag it", AutoApprove: true, CallLimits: map[string]int{"create_tag": 2}})
	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 3 || !results[0].Success || !results[1].Success || results[2].Success || !strings.Contains(results[2].Error, "at most 2 times") {
		t.Fatalf("results = %s", dumpEvents(results))
	}
	tags, err := f.db.ListTags(context.Background())
	if err != nil || len(tags) != 2 {
		t.Errorf("tags = %+v, %v", tags, err)
	}
}
