package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// logBuffer is a logger that keeps what it was given.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// The agent and the extractor log to the logger they are given, not to the
// process's default one.
func TestAgentAndExtractorLogToTheirLogger(t *testing.T) {
	f := newTurnFixture(t)
	var turnLog, extractLog logBuffer
	f.agent.Logger = turnLog.logger()
	f.agent.Extractor.Logger = extractLog.logger()

	f.srv.Enqueue(modeltest.Reply{Text: "one, two, th", DoneReason: "length"})
	f.chat(t, agent.ChatRequest{Message: "List every widget."})
	if !strings.Contains(turnLog.String(), "the model server cut the answer at its output limit") {
		t.Errorf("the agent's log: %q", turnLog.String())
	}

	ctx := context.Background()
	sch, err := agent.CreateSchema(ctx, f.db, "invoice", json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}},"required":["total"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "totals", Content: "Extract the total.", SchemaID: sch.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	// An invalid answer, then a repair call that fails: the first answer is
	// stored and the failure logged.
	f.srv.Enqueue(modeltest.Reply{Text: `{"total": "12.50 EUR"}`}, modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "bad request"}})
	if _, err := f.agent.Extractor.Run(ctx, agent.ExtractRequest{DocumentID: f.doc.ID, PromptRevID: prompt.PromptRevID, Model: "ollama/qwen3:8b"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(extractLog.String(), "extraction repair call failed") {
		t.Errorf("the extractor's log: %q", extractLog.String())
	}
}
