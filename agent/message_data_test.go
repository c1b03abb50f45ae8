package agent_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/docent/docent/agent"
)

// MessageData writes the JSON that threads in existing databases hold (the
// members a map literal wrote before it was a struct; only their order may
// differ), and reads it back.
func TestMessageDataIsWhatThreadsHold(t *testing.T) {
	args := json.RawMessage(`{"name":"till receipt"}`)
	for _, c := range []struct {
		name string
		data agent.MessageData
		old  string // as stored before (keys sorted, as a map wrote them)
	}{
		{"user with mentions", agent.MessageData{Mentions: []agent.Mention{{Type: "schema", ID: "sch_1"}}},
			`{"mentions":[{"type":"schema","id":"sch_1"}]}`},
		{"assistant", agent.MessageData{RoundIndex: new(0), Usage: &agent.Usage{PromptTokens: 10, CompletionTokens: 2}},
			`{"round_index":0,"usage":{"prompt_tokens":10,"completion_tokens":2}}`},
		{"assistant paused", agent.MessageData{RoundIndex: new(1), Usage: &agent.Usage{}, TurnID: "turn_1", NeedsApproval: []string{"c1"}},
			`{"needs_approval":["c1"],"round_index":1,"turn_id":"turn_1","usage":{"prompt_tokens":0,"completion_tokens":0}}`},
		{"tool edited", agent.MessageData{RoundIndex: new(0), ProposedArguments: json.RawMessage(`{"name":"receipt"}`), Arguments: args, Edited: true, Success: new(true)},
			`{"arguments":{"name":"till receipt"},"edited":true,"proposed_arguments":{"name":"receipt"},"round_index":0,"success":true}`},
		{"tool rejected", agent.MessageData{RoundIndex: new(2), ProposedArguments: args, Rejected: true, Success: new(false)},
			`{"proposed_arguments":{"name":"till receipt"},"rejected":true,"round_index":2,"success":false}`},
	} {
		got, err := json.Marshal(c.data)
		if err != nil {
			t.Fatal(err)
		}
		var a, b map[string]any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(c.old), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: writes %s, threads hold %s", c.name, got, c.old)
		}
		if back := agent.ParseMessageData(json.RawMessage(c.old)); !reflect.DeepEqual(mustMarshal(t, back), mustMarshal(t, c.data)) {
			t.Errorf("%s: reads %+v", c.name, back)
		}
	}
	if d := agent.ParseMessageData(nil); !reflect.DeepEqual(d, agent.MessageData{}) {
		t.Errorf("no data reads as %+v", d)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
