package agent_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
)

var getSchema = agent.ToolCall{ID: "c1", Name: "get_schema", Arguments: json.RawMessage(`{"schema_id":"s1"}`)}

// golden is every event type, each as the protocol writes it.
var golden = []struct {
	name string
	ev   agent.Event
	want string
}{
	{"turn_started", agent.TurnStarted("th_1", "ollama/qwen3:8b"),
		`{"type":"turn_started","thread_id":"th_1","model":"ollama/qwen3:8b"}`},
	{"turn_started without thread", agent.TurnStarted("", "openai/gpt-4o-mini"),
		`{"type":"turn_started","thread_id":"","model":"openai/gpt-4o-mini"}`},
	{"thinking_chunk round 0", agent.ThinkingChunk(0, "Let me"),
		`{"type":"thinking_chunk","chunk":"Let me","round_index":0}`},
	{"thinking_done", agent.ThinkingDone(0, "Let me look."),
		`{"type":"thinking_done","thinking":"Let me look.","round_index":0}`},
	{"assistant_text_chunk", agent.TextChunk(2, "Hel"),
		`{"type":"assistant_text_chunk","chunk":"Hel","round_index":2}`},
	{"assistant_text_done", agent.TextDone(0, "Hello"),
		`{"type":"assistant_text_done","full_text":"Hello","round_index":0}`},
	{"assistant_text_done empty", agent.TextDone(0, ""),
		`{"type":"assistant_text_done","full_text":"","round_index":0}`},
	{"tool_calls", agent.ToolCalls(0, []agent.ToolCall{getSchema}, nil),
		`{"type":"tool_calls","round_index":0,"tool_calls":[{"id":"c1","name":"get_schema","arguments":{"schema_id":"s1"}}],"needs_approval":[]}`},
	{"tool_calls needing approval", agent.ToolCalls(1, []agent.ToolCall{
		{ID: "c2", Name: "create_tag", Arguments: json.RawMessage(`{"name":"urgent"}`)},
		{ID: "c3", Name: "list_tags"},                                         // no arguments: {}
		{ID: "c4", Name: "get_tag", Arguments: json.RawMessage(`{"tag_id":`)}, // not JSON: a string
	}, []string{"c2"}),
		`{"type":"tool_calls","round_index":1,"tool_calls":[{"id":"c2","name":"create_tag","arguments":{"name":"urgent"}},{"id":"c3","name":"list_tags","arguments":{}},{"id":"c4","name":"get_tag","arguments":"{\"tag_id\":"}],"needs_approval":["c2"]}`},
	{"tool_result success", agent.ToolResultEvent(0, "c1", "get_schema", agent.ToolResult{Success: true, Result: json.RawMessage(`{"schema_id":"s1"}`), Preview: "schema invoice v1"}),
		`{"type":"tool_result","round_index":0,"call_id":"c1","name":"get_schema","success":true,"result":{"schema_id":"s1"},"preview":"schema invoice v1"}`},
	{"tool_result failure", agent.ToolResultEvent(0, "c1", "get_schema", agent.ToolResult{Error: "schema s1 not found"}),
		`{"type":"tool_result","round_index":0,"call_id":"c1","name":"get_schema","success":false,"error":"schema s1 not found"}`},
	{"round_executed", agent.RoundExecuted(agent.ExecutedRound{RoundIndex: 0, ToolCalls: []agent.ExecutedCall{
		{ID: "c1", Name: "get_schema", Arguments: json.RawMessage(`{"schema_id":"s1"}`), Success: true, Preview: "schema invoice v1"},
		{ID: "c2", Name: "create_tag", Arguments: json.RawMessage(`{"name":"x"}`), Error: "User rejected this action."},
	}}),
		`{"type":"round_executed","round_index":0,"thinking":"","tool_calls":[{"id":"c1","name":"get_schema","arguments":{"schema_id":"s1"},"success":true,"preview":"schema invoice v1"},{"id":"c2","name":"create_tag","arguments":{"name":"x"},"success":false,"preview":"","error":"User rejected this action."}]}`},
	{"usage zero", agent.UsageEvent(0, agent.Usage{}),
		`{"type":"usage","round_index":0,"prompt_tokens":0,"completion_tokens":0}`},
	{"usage", agent.UsageEvent(3, agent.Usage{PromptTokens: 1200, CompletionTokens: 34}),
		`{"type":"usage","round_index":3,"prompt_tokens":1200,"completion_tokens":34}`},
	{"done", agent.Done(agent.TurnResult{Text: "Hello", ThreadID: "th_1", Usage: agent.TurnUsage{Usage: agent.Usage{PromptTokens: 10, CompletionTokens: 2}}}),
		`{"type":"done","result":{"text":"Hello","thinking":"","thread_id":"th_1","working_state":{},"executed_rounds":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}}`},
	{"done paused", agent.Done(agent.TurnResult{
		ThreadID:       "th_1",
		WorkingState:   agent.WorkingState{SchemaRevID: "srv_1"},
		ExecutedRounds: []agent.ExecutedRound{{RoundIndex: 0, Thinking: "t", ToolCalls: []agent.ExecutedCall{{ID: "c1", Name: "get_schema", Arguments: json.RawMessage(`{}`), Success: true}}}},
		TurnID:         "turn_1",
		ToolCalls:      []agent.ToolCall{{ID: "c2", Name: "create_tag", Arguments: json.RawMessage(`{"name":"x"}`)}},
	}),
		`{"type":"done","result":{"text":"","thinking":"","thread_id":"th_1","working_state":{"schema_revid":"srv_1"},"executed_rounds":[{"round_index":0,"thinking":"t","tool_calls":[{"id":"c1","name":"get_schema","arguments":{},"success":true,"preview":""}]}],"turn_id":"turn_1","tool_calls":[{"id":"c2","name":"create_tag","arguments":{"name":"x"}}],"usage":{"prompt_tokens":0,"completion_tokens":0}}}`},
	{"error", agent.ErrorEvent("the model server is not running; start it with `ollama serve`", ""),
		`{"type":"error","error":"the model server is not running; start it with ` + "`ollama serve`" + `"}`},
	{"error with code", agent.ErrorEvent("model not found", "model_not_found"),
		`{"type":"error","error":"model not found","code":"model_not_found"}`},
}

func TestEventJSONIsTheProtocols(t *testing.T) {
	for _, g := range golden {
		got, err := json.Marshal(g.ev)
		if err != nil {
			t.Errorf("%s: %v", g.name, err)
			continue
		}
		if string(got) != g.want {
			t.Errorf("%s:\n got %s\nwant %s", g.name, got, g.want)
		}
		// A pointer encodes the same.
		if p, _ := json.Marshal(&g.ev); string(p) != string(got) {
			t.Errorf("%s: *Event encodes as %s", g.name, p)
		}
	}
	seen := map[agent.EventType]bool{}
	for _, g := range golden {
		seen[g.ev.Type] = true
	}
	for _, typ := range agent.EventTypes {
		if !seen[typ] {
			t.Errorf("no golden string for %s", typ)
		}
	}
}

func TestEventsRoundTrip(t *testing.T) {
	for _, g := range golden {
		var back agent.Event
		if err := json.Unmarshal([]byte(g.want), &back); err != nil {
			t.Errorf("%s: decode: %v", g.name, err)
			continue
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != g.want {
			t.Errorf("%s: round trip:\n got %s (%v)\nwant %s", g.name, again, err, g.want)
		}
		want := g.ev
		want.Created = nil
		if !reflect.DeepEqual(back, want) && !emptyVsNil(back, want) {
			t.Errorf("%s: decoded %+v, want %+v", g.name, back, want)
		}
	}

	var done agent.Event
	if err := json.Unmarshal([]byte(golden[len(golden)-3].want), &done); err != nil {
		t.Fatal(err)
	}
	r := done.Payload.(agent.DonePayload).Result
	if !r.Paused() || r.TurnID != "turn_1" || len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != "c2" ||
		r.WorkingState.SchemaRevID != "srv_1" || len(r.ExecutedRounds) != 1 || !r.ExecutedRounds[0].ToolCalls[0].Success {
		t.Errorf("decoded paused result: %+v", r)
	}

	// Fields of other types are not picked up.
	var e agent.Event
	if err := json.Unmarshal([]byte(`{"type":"turn_started","thread_id":"th","model":"m","round_index":4,"chunk":"x"}`), &e); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, agent.TurnStarted("th", "m")) {
		t.Errorf("decoded %+v", e)
	}
	// Additions to the protocol decode without error.
	if err := json.Unmarshal([]byte(`{"type":"compaction","round_index":1}`), &e); err != nil || e.Type != "compaction" || e.Payload != nil {
		t.Errorf("unknown type: %+v, %v", e, err)
	}
	if err := json.Unmarshal([]byte(`{"round_index":1}`), &e); err == nil {
		t.Error("an event without type decoded")
	}
}

func TestEventsThatDoNotEncode(t *testing.T) {
	for _, e := range []agent.Event{
		{Type: "compaction"}, {}, {Type: agent.EventDone},
		{Type: agent.EventDone, Payload: agent.TextDonePayload{}},      // the payload of another type
		{Type: "compaction", Payload: compaction{}},                    // an unregistered payload
		{Payload: agent.TextDonePayload{}},                             // no type
		{Type: agent.EventTextDone, Payload: &agent.TextDonePayload{}}, // a pointer
	} {
		if b, err := json.Marshal(e); err == nil {
			t.Errorf("%+v encoded as %s", e, b)
		}
	}
}

func TestAccessors(t *testing.T) {
	r := agent.ToolResult{Success: true, Result: json.RawMessage(`1`), Preview: "p"}
	if got := agent.ToolResultEvent(0, "c", "n", r).Outcome(); string(got.Result) != "1" || !got.Success || got.Preview != "p" {
		t.Errorf("Outcome = %+v", got)
	}
	created := []agent.Ref{{Kind: agent.KindSchema, ID: "sch_1"}}
	e := agent.ToolResultEvent(1, "c", "n", agent.ToolResult{Success: true, Created: created})
	if got := e.Outcome(); !reflect.DeepEqual(got.Created, created) || !reflect.DeepEqual(e.Created, created) {
		t.Errorf("Created: event %+v, outcome %+v", e.Created, got.Created)
	}
	if p := e.Payload.(agent.ToolResultPayload); p.Created != nil {
		t.Errorf("the payload carries Created %+v; it is not on the wire", p.Created)
	}
	if got := agent.TextDone(0, "x").Outcome(); got.Success || got.Error != "" {
		t.Errorf("Outcome of another event = %+v", got)
	}
	round := agent.ExecutedRound{RoundIndex: 2, Thinking: "t", ToolCalls: []agent.ExecutedCall{{ID: "c"}}}
	if got, ok := agent.RoundExecuted(round).Round(); got != 2 || !ok {
		t.Errorf("Round = %d, %v", got, ok)
	}
	if _, ok := agent.Done(agent.TurnResult{}).Round(); ok {
		t.Error("done has a round")
	}
	if got := agent.PayloadsOf[agent.TextChunkPayload]([]agent.Event{agent.TextChunk(0, "a"), agent.TextDone(0, "ab"), agent.TextChunk(1, "c")}); len(got) != 2 || got[1].Chunk != "c" {
		t.Errorf("PayloadsOf = %+v", got)
	}
	if !agent.EventDone.Terminal() || !agent.EventError.Terminal() || agent.EventUsage.Terminal() {
		t.Error("Terminal")
	}
	if agent.EventTurnStarted.HasRoundIndex() || agent.EventDone.HasRoundIndex() || !agent.EventUsage.HasRoundIndex() {
		t.Error("HasRoundIndex")
	}
}

// compaction is a payload that is not registered.
type compaction struct{}

func (compaction) EventType() agent.EventType { return "compaction" }

// emptyVsNil reports whether a and b differ only in nil and empty slices,
// which the wire does not tell apart (nil is written as []).
func emptyVsNil(a, b agent.Event) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Every payload type is registered once, its JSON members have names, and
// every event type but the terminal ones belongs to a round.
func TestPayloadRegistry(t *testing.T) {
	if len(agent.EventTypes) == 0 {
		t.Fatal("no event types")
	}
	for _, typ := range agent.EventTypes {
		pt, ok := agent.PayloadType(typ)
		if !ok || pt.Kind() != reflect.Struct {
			t.Errorf("%s: payload type %v", typ, pt)
			continue
		}
		p := reflect.Zero(pt).Interface().(agent.Payload)
		if p.EventType() != typ {
			t.Errorf("%s: payload %s says %s", typ, pt, p.EventType())
		}
		if want := typ != agent.EventTurnStarted && !typ.Terminal(); typ.HasRoundIndex() != want {
			t.Errorf("%s: HasRoundIndex = %v", typ, !want)
		}
	}
}

func TestSinkFunc(t *testing.T) {
	gone := errors.New("client gone")
	var got []agent.EventType
	var s agent.Sink = agent.SinkFunc(func(e agent.Event) error {
		got = append(got, e.Type)
		if e.Type == agent.EventTextChunk {
			return gone
		}
		return nil
	})
	if err := s.Emit(agent.TurnStarted("", "m")); err != nil {
		t.Fatal(err)
	}
	if err := s.Emit(agent.TextChunk(0, "x")); !errors.Is(err, gone) {
		t.Fatalf("Emit = %v", err)
	}
	if len(got) != 2 {
		t.Errorf("got %v", got)
	}
}

// A successful call of a tool that changes the extraction says so on the
// wire, so clients show the extraction again; other calls do not.
func TestToolResultSaysWhenTheExtractionChanged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		success bool
		want    bool
	}{
		{"run_extraction", true, true},
		{"update_extraction_field", true, true},
		{"run_extraction", false, false},
		{"get_extraction_result", true, false},
	} {
		b, err := json.Marshal(agent.ToolResultEvent(0, "c1", tc.name, agent.ToolResult{Success: tc.success}))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"changed_extraction":true`); got != tc.want {
			t.Errorf("%s (success %v): %s", tc.name, tc.success, b)
		}
	}
}
