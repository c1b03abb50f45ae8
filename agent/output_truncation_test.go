package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// A chat answer the model server cut at its output limit (Ollama's
// done_reason, OpenAI's finish_reason "length") says so on its usage event
// and in the stored assistant message, with what to change; a whole answer
// says nothing of it.
func TestTurnWhoseAnswerWasCutFlagsItsUsageEventAndMessage(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newTurnFixture(t)
		f.srv.Enqueue(modeltest.Reply{Text: "The widgets are: one, two, th", DoneReason: "length"})
		res, events := f.chat(t, agent.ChatRequest{Model: model, Message: "List every widget."})
		usages := agent.PayloadsOf[agent.UsagePayload](events)
		if len(usages) != 1 || usages[0].OutputTruncated == nil {
			t.Fatalf("usage events %s, want one with output_truncated", dumpEvents(usages))
		}
		cut := usages[0].OutputTruncated
		limit := map[string]string{"ollama/qwen3:8b": "num_predict", "openai/qwen3:8b": "max_tokens"}[model]
		if cut.Reason != "length" || !strings.Contains(cut.Warning, "incomplete") || !strings.Contains(cut.Warning, limit) {
			t.Errorf("output_truncated = %+v, want reason length and a warning naming %s", *cut, limit)
		}
		for _, e := range events {
			if b, _ := json.Marshal(e); e.Type == agent.EventUsage && !strings.Contains(string(b), `"output_truncated":{"reason":"length","warning":`) {
				t.Errorf("usage event on the wire: %s", b)
			}
		}
		if got := storedCut(t, f, res.ThreadID); got == nil || *got != *cut {
			t.Errorf("stored output_truncated = %+v, want %+v", got, *cut)
		}

		f.srv.Enqueue(modeltest.Reply{Text: "That is all."})
		res, events = f.chat(t, agent.ChatRequest{Model: model, ThreadID: res.ThreadID, Message: "Go on."})
		if u := agent.PayloadsOf[agent.UsagePayload](events); len(u) != 1 || u[0].OutputTruncated != nil {
			t.Errorf("a whole answer: usage events %s", dumpEvents(u))
		}
		if got := storedCut(t, f, res.ThreadID); got != nil {
			t.Errorf("a whole answer stored output_truncated %+v", *got)
		}
	})
}

// The same for a model in the text protocol (no native tools).
func TestTextProtocolAnswerThatWasCutIsFlagged(t *testing.T) {
	f := newTurnFixture(t, modeltest.DefaultModel, noTools)
	f.srv.Enqueue(modeltest.Reply{Text: `FINAL {"answer": "The widgets are: one, two"}`, DoneReason: "length"})
	_, events := f.chat(t, agent.ChatRequest{Model: "ollama/gemma3:4b", Message: "List every widget."})
	if u := agent.PayloadsOf[agent.UsagePayload](events); len(u) != 1 || u[0].OutputTruncated == nil || u[0].OutputTruncated.Reason != "length" {
		t.Errorf("usage events %s, want one with output_truncated", dumpEvents(u))
	}
}

// storedCut is the output_truncated of the thread's last assistant message.
func storedCut(t *testing.T, f *turnFixture, threadID string) *agent.OutputTruncation {
	t.Helper()
	msgs, err := f.db.ThreadMessages(context.Background(), threadID)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == storage.RoleAssistant {
			return agent.ParseMessageData(msgs[i].Data).OutputTruncated
		}
	}
	t.Fatalf("no assistant message in %d messages", len(msgs))
	return nil
}
