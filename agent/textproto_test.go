package agent_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
)

// noTools is an Ollama model whose /api/show says it cannot take tools.
var noTools = modeltest.Model{Name: "gemma3:4b", ContextLength: 8192, Capabilities: []string{"completion"}, Family: "gemma3"}

func TestTurnTextProtocolForAModelWithoutTools(t *testing.T) {
	f := newTurnFixture(t, modeltest.DefaultModel, noTools)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{Thinking: "Page 2 has the totals.", Text: "Let me read page 2.\nTOOL_CALL {\"tool\": \"get_ocr_text\", \"input\": {\"page_num\": 2}}"})
	f.srv.Enqueue(modeltest.Reply{Text: "```\nTOOL_CALL {\"tool\": \"create_schema\",\n  \"input\": {\"name\": \"Receipt\", \"response_format\": " + receiptSchema + "}}\n```"})
	res, paused := f.chat(t, agent.ChatRequest{Model: "ollama/gemma3:4b", Message: "make a schema for the totals"})
	if res.TurnID == "" || len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "create_schema" {
		t.Fatalf("want a pause on create_schema, got %+v", res)
	}
	// What the user saw of round 0 is the sentence, not the protocol line.
	if done := agent.PayloadsOf[agent.TextDonePayload](paused); done[0].FullText != "Let me read page 2." {
		t.Errorf("round 0 text = %q", done[0].FullText)
	}
	if r := agent.PayloadsOf[agent.ToolResultPayload](paused); len(r) != 1 || !r[0].Success {
		t.Fatalf("get_ocr_text result = %s", dumpEvents(r))
	}

	f.srv.Enqueue(modeltest.Reply{Text: `FINAL {"answer": "Created [Receipt](schema:x)."}`})
	res, _ = f.approve(t, paused, res.TurnID, agent.Approval{CallID: res.ToolCalls[0].ID, Approved: true})
	if res.Text != "Created [Receipt](schema:x)." {
		t.Errorf("final text = %q", res.Text)
	}
	if _, err := f.db.FindSchema(ctx, "Receipt"); err != nil {
		t.Errorf("the approved schema: %v", err)
	}

	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	for i, r := range reqs {
		if bytes.Contains(r.Body, []byte(`"tools"`)) {
			t.Errorf("request %d sent native tools to a model without them", i)
		}
		if sys := messagesOf(t, r)[0].Content; !strings.Contains(sys, "TOOL_CALL {\"tool\"") || !strings.Contains(sys, "- create_schema (changes data") {
			t.Errorf("request %d: the system message does not describe the text protocol", i)
		}
	}
	// Results come back as user messages; the calls as TOOL_CALL lines.
	sent := messagesOf(t, reqs[2])
	var calls, results int
	for _, m := range sent {
		if m.Role == "assistant" && strings.Contains(m.Content, "TOOL_CALL ") {
			calls++
		}
		if m.Role == "user" && strings.HasPrefix(m.Content, "TOOL_RESULT ") {
			results++
		}
		if m.Role == "tool" {
			t.Errorf("a tool-role message was sent in text mode: %q", m.Content)
		}
	}
	if calls != 2 || results != 2 || !strings.Contains(sent[3].Content, "Total due: 12.50 EUR") {
		t.Errorf("text-mode history: %d calls, %d results, page text in %q", calls, results, sent[3].Content)
	}
}

func TestTurnTextProtocolAfterTheServerRefusesTools(t *testing.T) {
	f := newTurnFixture(t)
	f.srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusBadRequest, Message: "this model does not support tools"}})
	f.srv.Enqueue(modeltest.Reply{Text: `FINAL {"answer": "It is an ACME invoice."}`})
	res, _ := f.chat(t, agent.ChatRequest{Model: "openai/qwen3:8b", Message: "what is this?"})
	if res.Text != "It is an ACME invoice." {
		t.Errorf("text = %q", res.Text)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || !bytes.Contains(reqs[0].Body, []byte(`"tools"`)) || bytes.Contains(reqs[1].Body, []byte(`"tools"`)) {
		t.Errorf("want a native call then a text-protocol call, got %d calls", len(reqs))
	}
}

func TestTurnTextProtocolRepromptsOnceThenForcesAnAnswer(t *testing.T) {
	t.Run("reprompt", func(t *testing.T) {
		f := newTurnFixture(t, noTools)
		f.srv.Enqueue(modeltest.Reply{Text: "The total is 12.50 I think", PromptTokens: 10, CompletionTokens: 5})
		f.srv.Enqueue(modeltest.Reply{Text: `FINAL {"answer": "12.50 EUR"}`, PromptTokens: 20, CompletionTokens: 4})
		res, evs := f.chat(t, agent.ChatRequest{Model: "ollama/gemma3:4b", Message: "total?"})
		if res.Text != "12.50 EUR" || len(eventsOf(evs, agent.EventTextDone)) != 1 {
			t.Errorf("text = %q, rounds %d", res.Text, len(eventsOf(evs, agent.EventTextDone)))
		}
		if res.Usage.PromptTokens != 30 || res.Usage.CompletionTokens != 9 {
			t.Errorf("usage = %+v, want both calls counted", res.Usage)
		}
		sent := messagesOf(t, f.srv.Requests()[1])
		if last := sent[len(sent)-1]; last.Role != "user" || !strings.Contains(last.Content, "could not be read") {
			t.Errorf("the re-prompt = %+v", last)
		}
	})
	t.Run("forced", func(t *testing.T) {
		f := newTurnFixture(t, noTools)
		f.srv.Enqueue(modeltest.Reply{Text: "hmm"})
		f.srv.Enqueue(modeltest.Reply{Text: `TOOL_CALL {"input": {}}`})
		f.srv.Enqueue(modeltest.Reply{Text: "The total is 12.50 EUR."})
		res, _ := f.chat(t, agent.ChatRequest{Model: "ollama/gemma3:4b", Message: "total?"})
		if res.Text != "The total is 12.50 EUR." || res.TurnID != "" {
			t.Errorf("result = %+v", res)
		}
		reqs := f.srv.Requests()
		sent := messagesOf(t, reqs[len(reqs)-1])
		if len(reqs) != 3 || !strings.Contains(sent[len(sent)-1].Content, "Stop using tools") {
			t.Errorf("%d calls; last prompt %q", len(reqs), sent[len(sent)-1].Content)
		}
	})
}
