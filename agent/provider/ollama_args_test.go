package provider

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// TestOllamaToolArgumentsKeepTheModelsKeyOrder: a JSON Schema's properties
// are in field order (the export's columns, the order the model is asked
// for), so a tool call's arguments keep the key order the model sent at
// every depth, both as the caller receives them and as they go back to
// Ollama in the history.
func TestOllamaToolArgumentsKeepTheModelsKeyOrder(t *testing.T) {
	const args = `{"name":"x","schema":{"type":"object","properties":{"zeta":{},"alpha":{},"mid":{}}}}`
	s := modeltest.New(t)
	p := providers(t, testConfig(s))[0]
	s.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "call_1", Name: "create_schema", Arguments: args}}},
		modeltest.Reply{Text: "done"},
	)
	req := userReq("make a schema")
	req.Tools = []Tool{{Name: "create_schema", Description: "Create a schema",
		Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"schema":{"type":"object"}}}`)}}
	_, resp, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != args {
		for _, tc := range resp.ToolCalls {
			t.Logf("received %s %s", tc.Name, tc.Arguments)
		}
		t.Fatalf("want one call with arguments %s", args)
	}

	req.Messages = append(req.Messages,
		Message{Role: "assistant", ToolCalls: resp.ToolCalls},
		Message{Role: "tool", ToolCallID: "call_1", ToolName: "create_schema", Content: `{"ok":true}`})
	if _, _, err := collect(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	rec := s.Requests()
	var sent struct {
		ToolCalls []struct {
			Function struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if len(rec) != 2 || len(rec[1].Messages) != 4 {
		t.Fatalf("%d requests; the second has messages %s", len(rec), rec[len(rec)-1].Messages)
	}
	if err := json.Unmarshal(rec[1].Messages[2], &sent); err != nil || len(sent.ToolCalls) != 1 {
		t.Fatalf("history message %s (%v)", rec[1].Messages[2], err)
	}
	if got := string(sent.ToolCalls[0].Function.Arguments); got != args {
		t.Errorf("arguments sent back to Ollama = %s, want %s", got, args)
	}
}
