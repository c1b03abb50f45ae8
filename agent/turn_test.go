package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// turnFixture is a store with a two-page invoice, a scripted model server
// and an Agent talking to it through the real providers. (The tests are in
// package agent_test because eventcheck imports agent.)
type turnFixture struct {
	db    *storage.DB
	srv   *modeltest.Server
	doc   storage.Document
	agent *agent.Agent
}

// newTurnFixture serves models (modeltest.DefaultModel when none).
func newTurnFixture(t *testing.T, models ...modeltest.Model) *turnFixture {
	t.Helper()
	return newFixtureOn(t, modeltest.New(t, models...))
}

// newFixtureOn is a store with one document and an agent whose models are
// srv's: modeltest.NewInMemory's inside a testing/synctest bubble.
func newFixtureOn(t *testing.T, srv *modeltest.Server) *turnFixture {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "acme.pdf", MediaType: "application/pdf", Data: []byte("%PDF acme"),
		Pages: []string{"ACME Corporation\nInvoice A-1\nDate: 2024-03-01\n", "Widgets 10.00\nShipping 2.50\nTotal due: 12.50 EUR\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: srv.OllamaURL(), OpenAIBaseURL: srv.OpenAIURL(), OpenAIKey: "test",
		IdleTimeout: 5 * time.Second, MaxRetries: -1, HTTPClient: srv.Client(),
	})
	a := &agent.Agent{DB: db, Providers: reg, Extractor: &agent.Extractor{DB: db, Providers: reg}, DefaultModel: "ollama/qwen3:8b"}
	return &turnFixture{db: db, srv: srv, doc: doc, agent: a}
}

// eachWire runs fn once with an Ollama and once with an OpenAI model id.
func eachWire(t *testing.T, fn func(t *testing.T, model string)) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) { fn(t, wire+"/qwen3:8b") })
	}
}

func messagesOf(t *testing.T, r modeltest.Request) []modeltest.Message {
	t.Helper()
	msgs, err := r.ChatMessages()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// chat runs a Chat turn, checks its events and returns the result and events.
func (f *turnFixture) chat(t *testing.T, req agent.ChatRequest) (agent.TurnResult, []agent.Event) {
	t.Helper()
	if req.DocumentID == "" {
		req.DocumentID = f.doc.ID
	}
	var rec eventcheck.Recorder
	res, err := f.agent.Chat(context.Background(), req, &rec)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("events: %v\n%s", err, dumpEvents(rec.Events()))
	}
	return res, rec.Events()
}

// approve runs an Approve continuation of paused and checks its events.
func (f *turnFixture) approve(t *testing.T, paused []agent.Event, turnID string, approvals ...agent.Approval) (agent.TurnResult, []agent.Event) {
	t.Helper()
	var rec eventcheck.Recorder
	res, err := f.agent.Approve(context.Background(), agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: turnID, Approvals: approvals}, &rec)
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	if err := rec.Check(eventcheck.ContinuationOf(paused)); err != nil {
		t.Fatalf("approve events: %v\n%s", err, dumpEvents(rec.Events()))
	}
	return res, rec.Events()
}

func dumpEvents[T any](evs []T) string {
	var b strings.Builder
	for _, e := range evs {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func eventsOf(evs []agent.Event, typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// toolMessages returns the content of the tool messages a request sent.
func toolMessages(t *testing.T, r modeltest.Request) []string {
	t.Helper()
	var out []string
	for _, m := range messagesOf(t, r) {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

const receiptSchema = `{"type":"object","properties":{"total":{"type":"number"}},"required":["total"],"additionalProperties":false}`

func createSchemaCall(id, name string) modeltest.ToolCall {
	return modeltest.ToolCall{ID: id, Name: "create_schema", Arguments: `{"name":"` + name + `","response_format":` + receiptSchema + `}`}
}

func TestTurnTextOnly(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		f.srv.Enqueue(modeltest.Reply{Thinking: "The user greets me.", Text: "Hello! This is an ACME invoice.", PromptTokens: 100, CompletionTokens: 7})
		res, evs := f.chat(t, agent.ChatRequest{Message: "hi, what is this?", Model: model})
		if res.Text != "Hello! This is an ACME invoice." || res.ThreadID == "" || res.Paused() {
			t.Fatalf("result %+v", res)
		}
		if res.Usage.PromptTokens != 100 || res.Usage.CompletionTokens != 7 {
			t.Errorf("usage %+v", res.Usage)
		}
		if len(eventsOf(evs, agent.EventTextChunk)) < 2 {
			t.Errorf("text was not streamed in chunks:\n%s", dumpEvents(evs))
		}
		reqs := f.srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		msgs := messagesOf(t, reqs[0])
		if msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, f.doc.ID) || !strings.Contains(msgs[0].Content, "Total due: 12.50 EUR") {
			t.Errorf("system message %q", msgs[0].Content)
		}
		if len(reqs[0].Tools) != len(agent.Tools()) {
			t.Errorf("%d tools sent", len(reqs[0].Tools))
		}
		th, err := f.db.GetThread(context.Background(), f.doc.ID, res.ThreadID)
		if err != nil || th.Title != "hi, what is this?" || th.MessageCount != 2 {
			t.Errorf("thread %+v, %v", th, err)
		}
	})
}

func TestTurnReadOnlyToolRunsThenAnswers(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(
		modeltest.Reply{Thinking: "I need the text.", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "get_ocr_text", Arguments: `{"page_num":2}`}}},
		modeltest.Reply{Text: "The total is 12.50 EUR."},
	)
	res, evs := f.chat(t, agent.ChatRequest{Message: "what is the total?"})
	if res.Text != "The total is 12.50 EUR." || len(res.ExecutedRounds) != 1 || !res.ExecutedRounds[0].ToolCalls[0].Success {
		t.Fatalf("result %+v", res)
	}
	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 1 || !results[0].Success || !strings.Contains(string(results[0].Result), "12.50") {
		t.Fatalf("tool results %+v", results)
	}
	tm := toolMessages(t, f.srv.Requests()[1])
	if len(tm) != 1 || !strings.Contains(tm[0], "Total due") {
		t.Errorf("tool messages sent %q", tm)
	}
}

func TestTurnWriteToolPausesThenApproveRunsIt(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		ctx := context.Background()
		f.srv.Enqueue(modeltest.Reply{Text: "I will create it.", ToolCalls: []modeltest.ToolCall{
			{ID: "v1", Name: "validate_schema", Arguments: `{"schema":` + receiptSchema + `}`},
			createSchemaCall("c1", "receipt"),
		}})
		res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema", Model: model})
		if !res.Paused() || len(res.ToolCalls) != 2 {
			t.Fatalf("result %+v", res)
		}
		tc := agent.PayloadsOf[agent.ToolCallsPayload](paused)
		if len(tc) != 1 || len(tc[0].NeedsApproval) != 1 || tc[0].NeedsApproval[0] != "c1" {
			t.Fatalf("tool_calls %+v", tc)
		}
		if len(eventsOf(paused, agent.EventToolResult)) != 0 {
			t.Fatal("a call ran before approval")
		}
		if _, err := f.db.FindSchema(ctx, "receipt"); err == nil {
			t.Fatal("the schema was created before approval")
		}

		f.srv.Enqueue(modeltest.Reply{Text: "Created [receipt](schema:x)."})
		res2, evs := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
		if res2.Text != "Created [receipt](schema:x)." || res2.Paused() || res2.ThreadID != res.ThreadID {
			t.Fatalf("approve result %+v", res2)
		}
		rs := agent.PayloadsOf[agent.ToolResultPayload](evs)
		if len(rs) != 2 || !rs[0].Success || !rs[1].Success {
			t.Fatalf("results %+v", rs)
		}
		rev, err := f.db.FindSchema(ctx, "receipt")
		if err != nil {
			t.Fatalf("schema not created: %v", err)
		}
		if res2.WorkingState.SchemaRevID != rev.SchemaRevID {
			t.Errorf("working state %+v, schema %+v", res2.WorkingState, rev)
		}
		if td := agent.PayloadsOf[agent.TextDonePayload](evs); len(td) != 1 || td[0].RoundIndex != 1 {
			t.Errorf("continuation rounds %+v", td)
		}
		// The thread holds user, assistant with calls, two tool results, answer.
		msgs, err := f.db.ThreadMessages(ctx, res.ThreadID)
		if err != nil || len(msgs) != 5 || msgs[1].Role != storage.RoleAssistant || len(msgs[1].ToolCalls) == 0 {
			t.Fatalf("thread messages %+v, %v", msgs, err)
		}
		th, _ := f.db.GetThread(ctx, f.doc.ID, res.ThreadID)
		var ws agent.WorkingState
		if err := json.Unmarshal(th.WorkingState, &ws); err != nil || ws.SchemaRevID != rev.SchemaRevID {
			t.Errorf("thread working state %s", th.WorkingState)
		}
	})
}

func TestTurnRejectTellsTheModel(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema"})
	f.srv.Enqueue(modeltest.Reply{Text: "OK, I did not create it."})
	res2, evs := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: false})
	if res2.Text != "OK, I did not create it." {
		t.Fatalf("result %+v", res2)
	}
	rs := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(rs) != 1 || rs[0].Success || rs[0].Error != agent.RejectedText {
		t.Fatalf("results %+v", rs)
	}
	reqs := f.srv.Requests()
	tm := toolMessages(t, reqs[len(reqs)-1])
	if len(tm) != 1 || tm[0] != `{"error":"User rejected this action."}` {
		t.Errorf("tool messages sent %q", tm)
	}
	if _, err := f.db.FindSchema(context.Background(), "receipt"); err == nil {
		t.Error("a rejected call ran")
	}
}

func TestTurnMissingApprovalCountsAsRejected(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema"})
	f.srv.Enqueue(modeltest.Reply{Text: "ok"})
	_, evs := f.approve(t, paused, res.TurnID)
	if rs := agent.PayloadsOf[agent.ToolResultPayload](evs); len(rs) != 1 || rs[0].Error != agent.RejectedText {
		t.Fatalf("results %+v", rs)
	}
}

func TestTurnEditedArgumentsRun(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema"})
	edited := json.RawMessage(`{"name":"till receipt","response_format":` + receiptSchema + `}`)
	f.srv.Enqueue(modeltest.Reply{Text: "done"})
	res2, _ := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true, Arguments: edited})
	if _, err := f.db.FindSchema(ctx, "till receipt"); err != nil {
		t.Fatalf("edited schema not created: %v", err)
	}
	if _, err := f.db.FindSchema(ctx, "receipt"); err == nil {
		t.Error("the proposed arguments ran")
	}
	if got := res2.ExecutedRounds[0].ToolCalls[0].Arguments; !strings.Contains(string(got), "till receipt") {
		t.Errorf("executed arguments %s", got)
	}
	msgs, err := f.db.ThreadMessages(ctx, res.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Proposed json.RawMessage `json:"proposed_arguments"`
		Ran      json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(msgs[2].Data, &data); err != nil || msgs[2].Role != storage.RoleTool {
		t.Fatalf("tool message %+v: %v", msgs[2], err)
	}
	if !strings.Contains(string(data.Proposed), `"receipt"`) || !strings.Contains(string(data.Ran), "till receipt") {
		t.Errorf("tool message data %s", msgs[2].Data)
	}
}

func TestTurnAutoApproveRunsWrites(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}},
		modeltest.Reply{Text: "created"},
	)
	res, evs := f.chat(t, agent.ChatRequest{Message: "make a receipt schema", AutoApprove: true})
	if res.Paused() || res.Text != "created" {
		t.Fatalf("result %+v", res)
	}
	if tc := agent.PayloadsOf[agent.ToolCallsPayload](evs); len(tc) != 1 || len(tc[0].NeedsApproval) != 0 {
		t.Fatalf("tool_calls %+v", tc)
	}
	if _, err := f.db.FindSchema(context.Background(), "receipt"); err != nil {
		t.Fatal(err)
	}
}

func TestTurnAutoApprovedToolsIsAWhitelist(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{
		{ID: "t1", Name: "create_tag", Arguments: `{"name":"receipts"}`},
		createSchemaCall("c1", "receipt"),
	}})
	res, evs := f.chat(t, agent.ChatRequest{Message: "tag and schema", AutoApprovedTools: []string{"create_tag"}})
	if !res.Paused() {
		t.Fatalf("result %+v", res)
	}
	tc := agent.PayloadsOf[agent.ToolCallsPayload](evs)
	if len(tc) != 1 || len(tc[0].NeedsApproval) != 1 || tc[0].NeedsApproval[0] != "c1" {
		t.Fatalf("tool_calls %+v", tc)
	}
	if _, err := f.db.FindTag(context.Background(), "receipts"); err == nil {
		t.Error("the auto-approved call ran although the batch paused")
	}
	// On approval the whitelisted call runs without an approval entry.
	f.srv.Enqueue(modeltest.Reply{Text: "both done"})
	_, evs2 := f.approve(t, evs, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
	if rs := agent.PayloadsOf[agent.ToolResultPayload](evs2); len(rs) != 2 || !rs[0].Success || !rs[1].Success {
		t.Fatalf("results %+v", rs)
	}
	if _, err := f.db.FindTag(context.Background(), "receipts"); err != nil {
		t.Error(err)
	}
}

func TestTurnApproveIsSingleUse(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"once"}`}}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "tag it"})
	f.srv.Enqueue(modeltest.Reply{Text: "tagged"})
	f.approve(t, paused, res.TurnID, agent.Approval{CallID: "t1", Approved: true})
	n := len(f.srv.Requests())

	var rec eventcheck.Recorder
	_, err := f.agent.Approve(context.Background(), agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: res.TurnID,
		Approvals: []agent.Approval{{CallID: "t1", Approved: true}}}, &rec)
	if err == nil || fault.ErrorCode(err) != "not_found" {
		t.Fatalf("second approve: %v", err)
	}
	if len(rec.Events()) != 0 || len(f.srv.Requests()) != n {
		t.Errorf("second approve ran something: %d events, %d requests", len(rec.Events()), len(f.srv.Requests())-n)
	}
	tags, _ := f.db.ListTags(context.Background())
	count := 0
	for _, tg := range tags {
		if tg.Name == "once" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d tags named once", count)
	}
	if _, err := f.agent.Approve(context.Background(), agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: "turn_unknown"}, &rec); err == nil {
		t.Error("unknown turn id approved")
	}
}

func TestTurnRoundCap(t *testing.T) {
	f := newTurnFixture(t)
	f.agent.MaxToolRounds = 3
	f.srv.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "list_tags", Arguments: `{}`}}}
	})
	res, evs := f.chat(t, agent.ChatRequest{Message: "loop forever"})
	if res.Text != agent.MaxRoundsText || len(res.ExecutedRounds) != 3 {
		t.Fatalf("result %+v", res)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if n := len(eventsOf(evs, agent.EventRoundExecuted)); n != 3 {
		t.Errorf("%d rounds executed", n)
	}
}

func TestTurnRoundCapCountsAcrossApproval(t *testing.T) {
	f := newTurnFixture(t)
	f.agent.MaxToolRounds = 2
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"x"}`}}})
	res, paused := f.chat(t, agent.ChatRequest{Message: "tag"})
	f.srv.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "list_tags", Arguments: `{}`}}}
	})
	res2, _ := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "t1", Approved: true})
	if res2.Text != agent.MaxRoundsText || len(res2.ExecutedRounds) != 2 {
		t.Fatalf("result %+v", res2)
	}
}

func TestTurnProviderErrorIsAnErrorEvent(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 500, Message: "boom"}})
	var rec eventcheck.Recorder
	_, err := f.agent.Chat(context.Background(), agent.ChatRequest{DocumentID: f.doc.ID, Message: "hi"}, &rec)
	if err == nil {
		t.Fatal("no error")
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	evs := rec.Events()
	if last := evs[len(evs)-1]; last.Type != agent.EventError || last.Payload.(agent.ErrorPayload).Error == "" {
		t.Fatalf("last event %+v", last)
	}
}

func TestTurnThreadContinues(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}},
		modeltest.Reply{Text: "Created the receipt schema."},
	)
	res, _ := f.chat(t, agent.ChatRequest{Message: "make a receipt schema", AutoApprove: true})
	rev, err := f.db.FindSchema(ctx, "receipt")
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(modeltest.Reply{Text: "It has one field."})
	res2, _ := f.chat(t, agent.ChatRequest{ThreadID: res.ThreadID, Message: "how many fields?"})
	if res2.ThreadID != res.ThreadID || res2.WorkingState.SchemaRevID != rev.SchemaRevID {
		t.Fatalf("second turn %+v", res2)
	}
	reqs := f.srv.Requests()
	msgs := messagesOf(t, reqs[len(reqs)-1])
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	want := "system user assistant tool assistant user"
	if strings.Join(roles, " ") != want {
		t.Fatalf("roles %v, want %s", roles, want)
	}
	if msgs[1].Content != "make a receipt schema" || msgs[4].Content != "Created the receipt schema." || msgs[5].Content != "how many fields?" {
		t.Errorf("history %+v", msgs)
	}
	if !strings.Contains(msgs[0].Content, "schema_revid: "+rev.SchemaRevID) {
		t.Errorf("system message lacks the working state:\n%s", msgs[0].Content)
	}
	if th, _ := f.db.GetThread(ctx, f.doc.ID, res.ThreadID); th.MessageCount != 6 {
		t.Errorf("thread has %d messages", th.MessageCount)
	}
}

func TestTurnStopsWhenTheClientIsGone(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{Text: "a long answer that streams in many chunks"})
	n := 0
	sink := agent.SinkFunc(func(e agent.Event) error {
		n++
		if n > 2 {
			return context.Canceled
		}
		return nil
	})
	_, err := f.agent.Chat(context.Background(), agent.ChatRequest{DocumentID: f.doc.ID, Message: "hi"}, sink)
	if err == nil {
		t.Fatal("no error after the sink failed")
	}
	if n != 3 {
		t.Errorf("%d events offered; the turn went on after the sink failed", n)
	}
}

func TestChatRefusesBadRequestsWithoutEvents(t *testing.T) {
	f := newTurnFixture(t)
	var rec eventcheck.Recorder
	for _, req := range []agent.ChatRequest{
		{DocumentID: "doc_unknown", Message: "hi"},
		{DocumentID: f.doc.ID, Message: "  "},
		{DocumentID: f.doc.ID, ThreadID: "thr_unknown", Message: "hi"},
		{DocumentID: f.doc.ID, Message: "hi", Model: "nope"},
	} {
		if _, err := f.agent.Chat(context.Background(), req, &rec); err == nil {
			t.Errorf("%+v: no error", req)
		}
	}
	if len(rec.Events()) != 0 || len(f.srv.Requests()) != 0 {
		t.Errorf("bad requests emitted %d events, made %d model calls", len(rec.Events()), len(f.srv.Requests()))
	}
}
