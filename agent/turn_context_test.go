package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// wireMessage is a sent message with the fields these tests look at, in
// either wire format.
type wireMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolName   string `json:"tool_name"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func wireMessages(t *testing.T, r modeltest.Request) []wireMessage {
	t.Helper()
	out := make([]wireMessage, len(r.Messages))
	for i, m := range r.Messages {
		if err := json.Unmarshal(m, &out[i]); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	return out
}

func TestTurnMentionsAreResolvedIntoTheSystemMessage(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		ctx := context.Background()
		sch, err := agent.CreateSchema(ctx, f.db, "Receipt", json.RawMessage(receiptSchema))
		if err != nil {
			t.Fatal(err)
		}
		tag, err := f.db.CreateTag(ctx, storage.NewTag{Name: "Supplier ACME", Description: "Everything ACME sends us"})
		if err != nil {
			t.Fatal(err)
		}
		other, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "globex.txt", MediaType: "text/plain", Data: []byte("x"), Pages: []string{"Globex receipt total 99.00"}})
		if err != nil {
			t.Fatal(err)
		}
		f.srv.Enqueue(modeltest.Reply{Text: "Noted."})
		res, _ := f.chat(t, agent.ChatRequest{Model: model, Message: "compare with these", Mentions: []agent.Mention{
			{Type: "schema", ID: sch.SchemaID}, {Type: "tag", ID: tag.ID}, {Type: "document", ID: other.ID},
		}})
		sys := messagesOf(t, f.srv.Requests()[0])[0].Content
		for _, want := range []string{`Schema "Receipt"`, sch.SchemaRevID, `"total"`, `Tag "Supplier ACME"`, "Everything ACME sends us", "globex.txt", "Globex receipt total 99.00"} {
			if !strings.Contains(sys, want) {
				t.Errorf("system message lacks %q:\n%s", want, sys)
			}
		}
		// Mentions come after the current document and its excerpt.
		if strings.Index(sys, "Mentioned by the user") < strings.Index(sys, "Total due: 12.50 EUR") {
			t.Errorf("mentions precede the document excerpt:\n%s", sys)
		}
		msgs, err := f.db.ThreadMessages(ctx, res.ThreadID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(msgs[0].Data), sch.SchemaID) {
			t.Errorf("the user message does not record its mentions: %s", msgs[0].Data)
		}
	})
}

func TestTurnBadMentionFailsBeforeAnyModelCall(t *testing.T) {
	f := newTurnFixture(t)
	for _, m := range []agent.Mention{
		{Type: "schema", ID: "sch_nope"},
		{Type: "prompt", ID: ""},
		{Type: "widget", ID: "x"},
		{Type: "document", ID: "doc_missing"},
	} {
		var rec eventcheck.Recorder
		_, err := f.agent.Chat(context.Background(), agent.ChatRequest{DocumentID: f.doc.ID, Message: "hi", Mentions: []agent.Mention{m}}, &rec)
		if !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("mention %+v: err = %v, want ErrInvalid", m, err)
		}
		if len(rec.Events()) != 0 {
			t.Errorf("mention %+v: events were emitted: %s", m, dumpEvents(rec.Events()))
		}
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
	if ths, _ := f.db.ListThreads(context.Background(), f.doc.ID); len(ths) != 0 {
		t.Errorf("a thread was created for a refused turn: %+v", ths)
	}
}

func TestParseMention(t *testing.T) {
	m, err := agent.ParseMention("Schema:sch_1")
	if err != nil || m != (agent.Mention{Type: "schema", ID: "sch_1"}) {
		t.Errorf("ParseMention = %+v, %v", m, err)
	}
	for _, bad := range []string{"sch_1", "widget:1", "tag:", ""} {
		if _, err := agent.ParseMention(bad); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("ParseMention(%q) err = %v", bad, err)
		}
	}
}

func TestTurnStatelessStoresNothing(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		ctx := context.Background()
		f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "Receipt")}})
		history := []agent.Message{
			{Role: "user", Content: "what is this?"},
			{Role: "assistant", Content: "An ACME invoice."},
		}
		res, paused := f.chat(t, agent.ChatRequest{Model: model, Message: "make a schema", Messages: history})
		if res.ThreadID != "" || res.TurnID == "" {
			t.Fatalf("result = %+v, want no thread and a pause", res)
		}
		sent := messagesOf(t, f.srv.Requests()[0])
		if len(sent) != 4 || sent[1].Content != "what is this?" || sent[2].Content != "An ACME invoice." || sent[3].Content != "make a schema" {
			t.Fatalf("sent = %+v", sent)
		}

		f.srv.Enqueue(modeltest.Reply{Text: "Created."})
		res, _ = f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
		if res.Text != "Created." || res.ThreadID != "" {
			t.Fatalf("approve result = %+v", res)
		}
		// The continuation still carried the client's history.
		sent = messagesOf(t, f.srv.Requests()[1])
		if len(sent) != 6 || sent[1].Content != "what is this?" || sent[5].Role != "tool" {
			t.Fatalf("continuation sent = %+v", sent)
		}
		if _, err := f.db.FindSchema(ctx, "Receipt"); err != nil {
			t.Errorf("the approved schema: %v", err)
		}
		if ths, _ := f.db.ListThreads(ctx, f.doc.ID); len(ths) != 0 {
			t.Errorf("a stateless turn stored threads: %+v", ths)
		}
	})
}

func TestTurnResubmitTruncatesTheThread(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{Text: "It is from ACME."})
	first, _ := f.chat(t, agent.ChatRequest{Message: "who sent it?"})
	f.srv.Enqueue(modeltest.Reply{Text: "12.50 EUR."})
	f.chat(t, agent.ChatRequest{ThreadID: first.ThreadID, Message: "what is the total?"})

	// Edit the second question: keep the first exchange (2 messages).
	keep := 2
	f.srv.Enqueue(modeltest.Reply{Text: "2024-03-01."})
	f.chat(t, agent.ChatRequest{ThreadID: first.ThreadID, Message: "what is the date?", TruncateThreadToMessageCount: &keep})
	msgs, err := f.db.ThreadMessages(ctx, first.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	if strings.Join(got, "|") != "who sent it?|It is from ACME.|what is the date?|2024-03-01." {
		t.Errorf("thread = %q", got)
	}
	sent := messagesOf(t, f.srv.Requests()[2])
	if len(sent) != 4 || sent[3].Content != "what is the date?" {
		t.Errorf("the model was sent %+v", sent)
	}

	// Truncating needs a thread.
	_, err = f.agent.Chat(ctx, agent.ChatRequest{DocumentID: f.doc.ID, Message: "x", TruncateThreadToMessageCount: &keep}, nil)
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("truncate without thread: err = %v", err)
	}
}

func TestTurnThreadLeftPausedStillReadsAsValidHistory(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		ctx := context.Background()
		f.srv.Enqueue(modeltest.Reply{Text: "Proposing a schema.", ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "Receipt")}})
		paused, pausedEvents := f.chat(t, agent.ChatRequest{Model: model, Message: "make a schema"})

		// The thread shows the proposal as the user saw it.
		msgs, err := f.db.ThreadMessages(ctx, paused.ThreadID)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2 || len(msgs[1].ToolCalls) == 0 || !strings.Contains(string(msgs[1].Data), paused.TurnID) {
			t.Fatalf("thread after pause = %+v", msgs)
		}

		// The user asks something else instead of deciding.
		f.srv.Enqueue(modeltest.Reply{Text: "Sure, forget it."})
		f.chat(t, agent.ChatRequest{ThreadID: paused.ThreadID, Message: "never mind"})
		sent := wireMessages(t, f.srv.Requests()[1])
		// system, user, assistant(call c1), tool(c1: interrupted), user
		if len(sent) != 5 || len(sent[2].ToolCalls) != 1 || sent[3].Role != "tool" || sent[4].Content != "never mind" {
			t.Fatalf("sent = %+v", sent)
		}
		if !strings.Contains(sent[3].Content, agent.InterruptedText) {
			t.Errorf("the unanswered call's result = %q", sent[3].Content)
		}
		if model[:6] == "openai" && sent[3].ToolCallID != sent[2].ToolCalls[0].ID {
			t.Errorf("tool_call_id %q does not answer %q", sent[3].ToolCallID, sent[2].ToolCalls[0].ID)
		}

		// The old turn can no longer continue: its thread moved on.
		var rec eventcheck.Recorder
		_, err = f.agent.Approve(ctx, agent.ApproveRequest{DocumentID: f.doc.ID, TurnID: paused.TurnID, Approvals: []agent.Approval{{CallID: "c1", Approved: true}}}, &rec)
		if !errors.Is(err, storage.ErrConflict) || len(rec.Events()) != 0 {
			t.Errorf("late approve: err = %v, events %d", err, len(rec.Events()))
		}
		if _, err := f.db.FindSchema(ctx, "Receipt"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("the schema of the abandoned turn was created: %v", err)
		}
		_ = pausedEvents
	})
}

func TestTurnOnlyTheLastCitationsStayInFull(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	hits, err := f.db.Search(ctx, "invoice", 1)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	open := func(id string) modeltest.ToolCall {
		return modeltest.ToolCall{ID: id, Name: "open_citation", Arguments: fmt.Sprintf(`{"document_id":%q,"chunk_id":%d}`, hits[0].DocumentID, hits[0].ChunkID)}
	}
	// Four citations in four rounds, then a fifth search-or-open call that
	// is over the turn's budget, then an answer.
	for i := range 4 {
		f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{open(fmt.Sprintf("o%d", i))}})
	}
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "search_docs", Arguments: `{"query":"total"}`}}})
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s2", Name: "search_docs", Arguments: `{"query":"date"}`}}})
	f.srv.Enqueue(modeltest.Reply{Text: "Found it."})
	_, evs := f.chat(t, agent.ChatRequest{Message: "find the invoice number"})

	results := agent.PayloadsOf[agent.ToolResultPayload](evs)
	if len(results) != 6 || !results[4].Success || results[5].Success || !strings.Contains(results[5].Error, "search limit reached") {
		t.Fatalf("tool results = %s", dumpEvents(results))
	}
	reqs := f.srv.Requests()
	last := wireMessages(t, reqs[len(reqs)-1])
	var full, stub int
	for _, m := range last {
		if m.Role != "tool" || !strings.Contains(m.Content, `"chunk_id"`) {
			continue
		}
		switch {
		case strings.Contains(m.Content, `"text"`):
			full++
		case strings.Contains(m.Content, "call open_citation again"):
			stub++
		}
	}
	if full != agent.FullCitations || stub != 1 {
		t.Errorf("citations sent in full %d, as stubs %d; want %d and 1", full, stub, agent.FullCitations)
	}
}

func TestTurnHistoryFitsTheContextWindow(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	// A 9,000-token window, about 3,800 of them taken by the system message
	// and the tools; each exchange is about 1,000 tokens, so the six do not
	// all fit.
	small := provider.NewRegistry(provider.Config{OllamaHost: f.srv.OllamaURL(), MaxNumCtx: 9000, IdleTimeout: 5 * time.Second, MaxRetries: -1})
	a := &agent.Agent{DB: f.db, Providers: small, DefaultModel: "ollama/qwen3:8b"}
	long := strings.Repeat("word ", 800)
	var threadID string
	for i := range 6 {
		f.srv.Enqueue(modeltest.Reply{Text: fmt.Sprintf("answer %d", i)})
		res, err := a.Chat(ctx, agent.ChatRequest{DocumentID: f.doc.ID, ThreadID: threadID, Message: fmt.Sprintf("question %d %s", i, long)}, nil)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		threadID = res.ThreadID
	}
	reqs := f.srv.Requests()
	sent := messagesOf(t, reqs[len(reqs)-1])
	if !strings.HasPrefix(sent[len(sent)-1].Content, "question 5") {
		t.Fatalf("the current question was not sent last: %.40q", sent[len(sent)-1].Content)
	}
	if strings.HasPrefix(sent[1].Content, "question 0") || sent[1].Role != "user" {
		t.Errorf("the oldest exchange was sent, or history starts with %s", sent[1].Role)
	}
	if len(sent) < 3 {
		t.Errorf("nothing of the earlier exchanges fit: %d messages", len(sent))
	}
	msgs, err := f.db.ThreadMessages(ctx, threadID)
	if err != nil || len(msgs) != 12 {
		t.Errorf("the thread lost messages: %d, %v", len(msgs), err)
	}
}
