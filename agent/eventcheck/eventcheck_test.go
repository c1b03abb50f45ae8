package eventcheck_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
)

var (
	getSchema  = agent.ToolCall{ID: "c1", Name: "get_schema", Arguments: json.RawMessage(`{"schema_id":"s1"}`)}
	createTag  = agent.ToolCall{ID: "c2", Name: "create_tag", Arguments: json.RawMessage(`{"name":"urgent"}`)}
	schemaOK   = agent.ToolResult{Success: true, Result: json.RawMessage(`{"schema_id":"s1"}`), Preview: "schema invoice v1"}
	rejected   = agent.ToolResult{Error: "User rejected this action."}
	tagCreated = agent.ToolResult{Success: true, Result: json.RawMessage(`{"tag_id":"t1"}`), Preview: "created tag urgent"}
)

func executed(round int, thinking string, calls []agent.ToolCall, results []agent.ToolResult) agent.ExecutedRound {
	r := agent.ExecutedRound{RoundIndex: round, Thinking: thinking}
	for i, c := range calls {
		r.ToolCalls = append(r.ToolCalls, agent.ExecutedCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments,
			Success: results[i].Success, Preview: results[i].Preview, Error: results[i].Error})
	}
	return r
}

// textTurn answers without tools.
func textTurn() []agent.Event {
	return []agent.Event{
		agent.TurnStarted("th_1", "ollama/qwen3:8b"),
		agent.ThinkingChunk(0, "The user "),
		agent.ThinkingChunk(0, "greets."),
		agent.ThinkingDone(0, "The user greets."),
		agent.TextChunk(0, "Hel"),
		agent.TextChunk(0, "lo"),
		agent.TextDone(0, "Hello"),
		agent.UsageEvent(0, agent.Usage{PromptTokens: 900, CompletionTokens: 12}),
		agent.Done(agent.TurnResult{Text: "Hello", Thinking: "The user greets.", ThreadID: "th_1",
			Usage: agent.TurnUsage{Usage: agent.Usage{PromptTokens: 900, CompletionTokens: 12}}}),
	}
}

// toolTurn runs a read-only call in round 0 and answers in round 1.
func toolTurn() []agent.Event {
	r0 := executed(0, "", []agent.ToolCall{getSchema}, []agent.ToolResult{schemaOK})
	return []agent.Event{
		agent.TurnStarted("th_1", "ollama/qwen3:8b"),
		agent.TextChunk(0, "Let me look."),
		agent.TextDone(0, "Let me look."),
		agent.ToolCalls(0, []agent.ToolCall{getSchema}, nil),
		agent.ToolResultEvent(0, "c1", "get_schema", schemaOK),
		agent.RoundExecuted(r0),
		agent.UsageEvent(0, agent.Usage{PromptTokens: 900, CompletionTokens: 30}),
		agent.TextChunk(1, "It has 3 fields."),
		agent.TextDone(1, "It has 3 fields."),
		agent.UsageEvent(1, agent.Usage{PromptTokens: 1000, CompletionTokens: 8}),
		agent.Done(agent.TurnResult{Text: "It has 3 fields.", ThreadID: "th_1", ExecutedRounds: []agent.ExecutedRound{r0},
			Usage: agent.TurnUsage{Usage: agent.Usage{PromptTokens: 1900, CompletionTokens: 38}}}),
	}
}

// pausedTurn proposes a read-only and a read-write call in round 0; the
// read-write one needs approval, so the turn pauses.
func pausedTurn() []agent.Event {
	batch := []agent.ToolCall{getSchema, createTag}
	return []agent.Event{
		agent.TurnStarted("th_1", "openai/gpt-4o-mini"),
		agent.TextDone(0, ""),
		agent.ToolCalls(0, batch, []string{"c2"}),
		agent.UsageEvent(0, agent.Usage{PromptTokens: 900, CompletionTokens: 40}),
		agent.Done(agent.TurnResult{ThreadID: "th_1", TurnID: "turn_1", ToolCalls: batch,
			Usage: agent.TurnUsage{Usage: agent.Usage{PromptTokens: 900, CompletionTokens: 40}}}),
	}
}

// continuation is the approve of pausedTurn: round 0's calls run, round 1
// answers.
func continuation(tag agent.ToolResult) []agent.Event {
	batch := []agent.ToolCall{getSchema, createTag}
	r0 := executed(0, "", batch, []agent.ToolResult{schemaOK, tag})
	return []agent.Event{
		agent.TurnStarted("th_1", "openai/gpt-4o-mini"),
		agent.ToolResultEvent(0, "c1", "get_schema", schemaOK),
		agent.ToolResultEvent(0, "c2", "create_tag", tag),
		agent.RoundExecuted(r0),
		agent.ThinkingDone(1, "done"),
		agent.TextDone(1, "Tagged."),
		agent.UsageEvent(1, agent.Usage{PromptTokens: 1100, CompletionTokens: 5}),
		agent.Done(agent.TurnResult{Text: "Tagged.", Thinking: "done", ThreadID: "th_1", ExecutedRounds: []agent.ExecutedRound{r0},
			Usage: agent.TurnUsage{Usage: agent.Usage{PromptTokens: 1100, CompletionTokens: 5}}}),
	}
}

func TestValidTurns(t *testing.T) {
	for name, events := range map[string][]agent.Event{
		"text only":  textTurn(),
		"tool round": toolTurn(),
		"paused":     pausedTurn(),
		"no thinking nor text streamed": {
			agent.TurnStarted("", "m"),
			agent.TextDone(0, "Hi"),
			agent.Done(agent.TurnResult{Text: "Hi"}),
		},
		"error mid-stream": {
			agent.TurnStarted("th_1", "m"),
			agent.TextChunk(0, "Hel"),
			agent.ErrorEvent("the model server went away", "provider_unavailable"),
		},
		"error before any round": {
			agent.TurnStarted("th_1", "m"),
			agent.ErrorEvent("boom", ""),
		},
		"interleaved thinking and text": {
			agent.TurnStarted("th_1", "m"),
			agent.ThinkingChunk(0, "a"),
			agent.TextChunk(0, "b"),
			agent.ThinkingChunk(0, "c"),
			agent.ThinkingDone(0, "ac"),
			agent.TextChunk(0, "d"),
			agent.TextDone(0, "bd"),
			agent.Done(agent.TurnResult{Text: "bd", Thinking: "ac", ThreadID: "th_1"}),
		},
	} {
		if err := eventcheck.Check(events); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestValidContinuation(t *testing.T) {
	for name, events := range map[string][]agent.Event{"approved": continuation(tagCreated), "rejected": continuation(rejected)} {
		if err := eventcheck.Check(events, eventcheck.ContinuationOf(pausedTurn())); err != nil {
			t.Errorf("%s, ContinuationOf: %v", name, err)
		}
		if err := eventcheck.Check(events, eventcheck.ContinuationFrom(0, getSchema, createTag)); err != nil {
			t.Errorf("%s, ContinuationFrom with the batch: %v", name, err)
		}
		if err := eventcheck.Check(events, eventcheck.ContinuationFrom(0)); err != nil {
			t.Errorf("%s, ContinuationFrom: %v", name, err)
		}
	}
	// A continuation that pauses again.
	again := slices.Concat(continuation(tagCreated)[:6], []agent.Event{
		agent.ToolCalls(1, []agent.ToolCall{{ID: "c3", Name: "delete_tag", Arguments: json.RawMessage(`{"tag_id":"t1"}`)}}, []string{"c3"}),
		agent.Done(agent.TurnResult{ThreadID: "th_1", TurnID: "turn_2",
			ToolCalls:      []agent.ToolCall{{ID: "c3", Name: "delete_tag", Arguments: json.RawMessage(`{"tag_id":"t1"}`)}},
			ExecutedRounds: []agent.ExecutedRound{executed(0, "", []agent.ToolCall{getSchema, createTag}, []agent.ToolResult{schemaOK, tagCreated})}}),
	})
	if err := eventcheck.Check(again, eventcheck.ContinuationOf(pausedTurn())); err != nil {
		t.Errorf("pausing again: %v", err)
	}

	// Wrong continuations.
	mustViolate(t, "continuation checked as a new turn", eventcheck.Check(continuation(tagCreated)), 1, "before round 0's tool_calls")
	mustViolate(t, "continuation from the wrong round", eventcheck.Check(continuation(tagCreated), eventcheck.ContinuationFrom(1)), 1, "first round is 0, want 1")
	mustViolate(t, "result for a call outside the batch",
		eventcheck.Check(continuation(tagCreated), eventcheck.ContinuationFrom(0, getSchema)), 2, `call "c2", which is not among round 0's calls`)
	if err := eventcheck.Check(continuation(tagCreated), eventcheck.ContinuationOf(textTurn())); err == nil || !strings.Contains(err.Error(), "no tool_calls event") {
		t.Errorf("ContinuationOf a turn that did not pause: %v", err)
	}
}

// change returns e with its payload, of type T, changed by f.
func change[T agent.Payload](e agent.Event, f func(*T)) agent.Event {
	p := e.Payload.(T)
	f(&p)
	e.Payload = p
	return e
}

// withRound returns e with round_index r, whatever its payload type.
func withRound(t *testing.T, e agent.Event, r int) agent.Event {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, e)), &obj); err != nil {
		t.Fatal(err)
	}
	obj["round_index"] = r
	var out agent.Event
	if err := json.Unmarshal([]byte(mustJSON(t, obj)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// edit returns events with f applied to a copy.
func edit(events []agent.Event, f func([]agent.Event) []agent.Event) []agent.Event {
	return f(slices.Clone(events))
}

func TestViolations(t *testing.T) {
	text, tools, paused := textTurn(), toolTurn(), pausedTurn()
	last := func(ev []agent.Event) int { return len(ev) - 1 }
	for _, c := range []struct {
		name   string
		events []agent.Event
		index  int
		reason string
	}{
		{"no events", nil, 0, "no events"},
		{"missing turn_started", text[1:], 0, "first event of a turn must be turn_started"},
		{"turn_started twice", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 1, e[0]) }), 1, "turn_started again"},
		{"turn_started without model", edit(text, func(e []agent.Event) []agent.Event {
			e[0] = change(e[0], func(p *agent.TurnStartedPayload) { p.Model = "" })
			return e
		}), 0, "without a model"},
		{"two dones", append(slices.Clone(text), text[last(text)]), len(text), "a second terminal event"},
		{"done then error", append(slices.Clone(text), agent.ErrorEvent("x", "")), len(text), "a second terminal event"},
		{"done not last", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 7, e[last(e)]) }), 8, "event after the turn ended with done at event 7"},
		{"event after done", append(slices.Clone(text), agent.UsageEvent(0, agent.Usage{})), len(text), "after the turn ended with done at event 8"},
		{"no terminal event", text[:last(text)], last(text), "the turn did not end"},
		{"text chunk after its done", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 7, agent.TextChunk(0, "!")) }), 7, "assistant_text_chunk after assistant_text_done in round 0"},
		{"thinking chunk after its done", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 4, agent.ThinkingChunk(0, "…")) }), 4, "thinking_chunk after thinking_done"},
		{"second text done", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 7, e[6]) }), 7, "a second assistant_text_done"},
		{"thinking_done after text done", []agent.Event{text[0], agent.TextDone(0, "Hi"), agent.ThinkingDone(0, "t"), text[last(text)]}, 2, "thinking_done after assistant_text_done"},
		{"text done before streamed thinking is done", []agent.Event{text[0], agent.ThinkingChunk(0, "t"), agent.TextDone(0, "Hi"), text[last(text)]}, 2, "assistant_text_done before thinking_done"},
		{"done before streamed text is done", []agent.Event{text[0], agent.TextChunk(0, "Hi"), text[last(text)]}, 2, "done before assistant_text_done of round 0"},
		{"tool_calls before streamed text is done", edit(tools, func(e []agent.Event) []agent.Event { return slices.Delete(e, 2, 3) }), 2, "tool_calls before assistant_text_done"},
		{"text after tool_calls", edit(tools, func(e []agent.Event) []agent.Event { return slices.Insert(e, 4, agent.TextChunk(0, "x")) }), 4, "assistant_text_chunk after tool_calls"},
		{"tool_result for an unknown call", edit(tools, func(e []agent.Event) []agent.Event {
			e[4] = agent.ToolResultEvent(0, "c9", "get_schema", schemaOK)
			return e
		}), 4, `tool_result for call "c9", which is not among round 0's calls [c1]`},
		{"tool_result with another tool's name", edit(tools, func(e []agent.Event) []agent.Event {
			e[4] = agent.ToolResultEvent(0, "c1", "get_prompt", schemaOK)
			return e
		}), 4, `names tool "get_prompt"; the call was to "get_schema"`},
		{"two results for one call", edit(tools, func(e []agent.Event) []agent.Event { return slices.Insert(e, 5, e[4]) }), 5, `a second tool_result for call "c1"`},
		{"tool_result before tool_calls", edit(tools, func(e []agent.Event) []agent.Event { e[3], e[4] = e[4], e[3]; return e }), 3, "before round 0's tool_calls"},
		{"round_executed before the results", edit(tools, func(e []agent.Event) []agent.Event { e[4], e[5] = e[5], e[4]; return e }), 4, `before the tool_result of call "c1"`},
		{"round_executed listing other calls", edit(tools, func(e []agent.Event) []agent.Event {
			e[5] = agent.RoundExecuted(agent.ExecutedRound{RoundIndex: 0})
			return e
		}), 5, "lists calls []; the round's tool_results were [c1]"},
		{"event of a round after its round_executed", edit(tools, func(e []agent.Event) []agent.Event { return slices.Insert(e, 6, agent.ThinkingDone(0, "late")) }), 6, "thinking_done of round 0 after its round_executed"},
		{"round going backwards", edit(tools, func(e []agent.Event) []agent.Event { return slices.Insert(e, 8, agent.UsageEvent(0, agent.Usage{})) }), 8, "round_index went back from 1 to 0"},
		{"round skipped", edit(tools, func(e []agent.Event) []agent.Event {
			for i := 7; i <= 9; i++ {
				e[i] = withRound(t, e[i], 2)
			}
			return e
		}), 7, "skipped from 0 to 2"},
		{"new turn not starting at round 0", edit(text, func(e []agent.Event) []agent.Event {
			for i := 1; i < last(e); i++ {
				e[i] = withRound(t, e[i], 1)
			}
			return e
		}), 1, "first round_index of a turn is 1, want 0"},
		{"next round without round_executed", edit(tools, func(e []agent.Event) []agent.Event { return slices.Delete(e, 5, 6) }), 6, "before round 0 was closed by round_executed"},
		{"next round without tool calls", []agent.Event{text[0], agent.TextDone(0, "a"), agent.TextDone(1, "b"), text[last(text)]}, 2, "before round 0 was closed"},
		{"pause without turn_id", edit(paused, func(e []agent.Event) []agent.Event {
			r := e[4].Payload.(agent.DonePayload).Result
			r.TurnID = ""
			e[4] = agent.Done(r)
			return e
		}), 4, "the turn paused in round 0 (needs_approval [c2]) but result has no turn_id"},
		{"pause without tool_calls", edit(paused, func(e []agent.Event) []agent.Event {
			r := e[4].Payload.(agent.DonePayload).Result
			r.ToolCalls = nil
			e[4] = agent.Done(r)
			return e
		}), 4, "but result has no tool_calls"},
		{"pause whose result omits a call needing approval", edit(paused, func(e []agent.Event) []agent.Event {
			r := e[4].Payload.(agent.DonePayload).Result
			r.ToolCalls = []agent.ToolCall{getSchema}
			e[4] = agent.Done(r)
			return e
		}), 4, `result.tool_calls lacks "c2"`},
		{"turn_id without a pause", edit(text, func(e []agent.Event) []agent.Event {
			r := e[last(e)].Payload.(agent.DonePayload).Result
			r.TurnID = "turn_1"
			e[last(e)] = agent.Done(r)
			return e
		}), last(text), `result has turn_id "turn_1" but the turn did not pause`},
		{"a call of a paused batch runs", edit(paused, func(e []agent.Event) []agent.Event {
			return slices.Insert(e, 3, agent.ToolResultEvent(0, "c1", "get_schema", schemaOK))
		}), 3, "whose batch needs approval ([c2]): nothing in the batch runs"},
		{"a round after a pause", edit(paused, func(e []agent.Event) []agent.Event { return slices.Insert(e, 4, agent.TextDone(1, "x")) }), 4, "after round 0 paused for approval"},
		{"needs_approval names an unknown call", edit(paused, func(e []agent.Event) []agent.Event {
			e[2] = change(e[2], func(p *agent.ToolCallsPayload) { p.NeedsApproval = []string{"c7"} })
			return e
		}), 2, `needs_approval names "c7"`},
		{"duplicate call ids", edit(tools, func(e []agent.Event) []agent.Event {
			e[3] = agent.ToolCalls(0, []agent.ToolCall{getSchema, getSchema}, nil)
			return e
		}), 3, `call id "c1" appears twice`},
		{"negative usage", edit(text, func(e []agent.Event) []agent.Event {
			e[7] = change(e[7], func(p *agent.UsagePayload) { p.PromptTokens = -1 })
			return e
		}), 7, "negative token count"},
		{"thread_id differs", edit(text, func(e []agent.Event) []agent.Event {
			e[0] = change(e[0], func(p *agent.TurnStartedPayload) { p.ThreadID = "th_2" })
			return e
		}), last(text), `result.thread_id "th_1" differs from turn_started's "th_2"`},
		{"done without result", edit(text, func(e []agent.Event) []agent.Event { e[last(e)].Payload = nil; return e }), last(text), "done event without its payload"},
		{"payload of another type", edit(text, func(e []agent.Event) []agent.Event { e[1].Payload = agent.TextChunkPayload{Chunk: "x"}; return e }), 1, "thinking_chunk event without its payload (agent.TextChunkPayload)"},
		{"executed round missing from the result", edit(tools, func(e []agent.Event) []agent.Event {
			r := e[last(e)].Payload.(agent.DonePayload).Result
			r.ExecutedRounds = nil
			e[last(e)] = agent.Done(r)
			return e
		}), last(tools), "result.executed_rounds lacks round 0"},
		{"error without a message", []agent.Event{text[0], agent.ErrorEvent(" ", "x")}, 1, "error without a message"},
		{"unknown type", edit(text, func(e []agent.Event) []agent.Event { return slices.Insert(e, 1, agent.Event{Type: "compaction"}) }), 1, `unknown event type "compaction"`},
	} {
		mustViolate(t, c.name, eventcheck.Check(c.events), c.index, c.reason)
	}
}

func mustViolate(t *testing.T, name string, err error, index int, reason string) {
	t.Helper()
	var v *eventcheck.Violation
	if !errors.As(err, &v) {
		t.Errorf("%s: got %v, want a violation at event %d", name, err, index)
		return
	}
	if v.Index != index || !strings.Contains(v.Reason, reason) {
		t.Errorf("%s:\n got %v\nwant event %d: …%s…", name, err, index, reason)
	}
}

func ndjson(t *testing.T, events []agent.Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func sse(t *testing.T, events []agent.Event) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(": stream open\n\n")
	for i, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "data: %s\n\n", line)
		if i%3 == 0 {
			b.WriteString(":keepalive\n\n")
		}
	}
	return b.String()
}

func TestCheckNDJSON(t *testing.T) {
	if err := eventcheck.CheckNDJSON(strings.NewReader(ndjson(t, toolTurn()))); err != nil {
		t.Errorf("tool turn: %v", err)
	}
	// Blank lines and CRLF are fine, and the last line needs no newline.
	s := strings.ReplaceAll(ndjson(t, textTurn()), "\n", "\r\n\n")
	if err := eventcheck.CheckNDJSON(strings.NewReader(strings.TrimSuffix(s, "\r\n\n"))); err != nil {
		t.Errorf("text turn with blank lines: %v", err)
	}
	if err := eventcheck.CheckNDJSON(strings.NewReader(ndjson(t, continuation(rejected))), eventcheck.ContinuationOf(pausedTurn())); err != nil {
		t.Errorf("continuation: %v", err)
	}
	// Order violations come from Check.
	mustViolate(t, "ndjson without done", eventcheck.CheckNDJSON(strings.NewReader(ndjson(t, textTurn()[:3]))), 3, "the turn did not end")

	// Fields the protocol requires must be on the wire, even when zero.
	for _, c := range []struct{ line, want string }{
		{`{"type":"assistant_text_chunk","chunk":"x"}`, "assistant_text_chunk without round_index"},
		{`{"type":"tool_result","round_index":0,"call_id":"c1","name":"get_schema"}`, "tool_result without success"},
		{`{"type":"tool_calls","round_index":0,"tool_calls":[{"id":"c1","name":"n","arguments":{}}],"needs_approval":null}`, "needs_approval is null, want an array"},
		{`{"type":"tool_calls","round_index":0,"tool_calls":[{"id":"c1","name":"n"}],"needs_approval":[]}`, "tool_calls.tool_calls[0] without arguments"},
		{`{"type":"round_executed","round_index":0,"thinking":"","tool_calls":[{"id":"c1","name":"n","arguments":{},"success":true}]}`, "without preview"},
		{`{"type":"done","result":{"text":"","thinking":"","thread_id":"","working_state":{},"executed_rounds":[]}}`, "done.result without usage"},
		{`{"type":"done","result":{"text":"","thinking":"","thread_id":"","working_state":null,"executed_rounds":[],"usage":{"prompt_tokens":0,"completion_tokens":0}}}`, "working_state is not a JSON object"},
		{`{"type":"usage","round_index":0,"prompt_tokens":1}`, "usage without completion_tokens"},
		{`{"type":"tool_result","round_index":0,"call_id":"c1","name":"get_schema","success":"yes"}`, `tool_result.success is "yes", want a boolean`},
		{`{"type":"assistant_text_done","full_text":null,"round_index":0}`, "assistant_text_done.full_text is null, want a string"},
		{`{"type":"usage","round_index":"0","prompt_tokens":1,"completion_tokens":2}`, `usage.round_index is "0", want a number`},
		{`{"type":"done","result":{"text":"","thinking":"","thread_id":"","working_state":{"extraction":{"extraction_id":"x"}},"executed_rounds":[],"usage":{"prompt_tokens":0,"completion_tokens":0}}}`, "done.result.working_state.extraction without document_id"},
		{`{"type":"bogus"}`, `unknown event type "bogus"`},
		{`{"chunk":"x"}`, "without a string type"},
		{`[1]`, "not a JSON object"},
		{`{"type":"turn_started","thread_id":"","model":"m"`, "not a JSON object"},
	} {
		in := ndjson(t, textTurn()[:1]) + c.line + "\n"
		err := eventcheck.CheckNDJSON(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "line 2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want line 2: …%s…", c.line, err, c.want)
		}
	}
}

func TestCheckSSE(t *testing.T) {
	if err := eventcheck.CheckSSE(strings.NewReader(sse(t, toolTurn()))); err != nil {
		t.Errorf("tool turn: %v", err)
	}
	if err := eventcheck.CheckSSE(strings.NewReader(strings.ReplaceAll(sse(t, pausedTurn()), "\n", "\r\n"))); err != nil {
		t.Errorf("paused turn with CRLF: %v", err)
	}
	// Other fields, "data:" without a space, and a frame split over data lines.
	in := ": hi\nevent: message\nid: 1\ndata:" + mustJSON(t, agent.TurnStarted("th_1", "m")) + "\n\n" +
		"data: {\"type\":\"assistant_text_done\",\n" + "data: \"full_text\":\"Hi\",\"round_index\":0}\n\n" +
		"retry: 1000\n\n" +
		"data: " + mustJSON(t, agent.Done(agent.TurnResult{Text: "Hi", ThreadID: "th_1"})) + "\n\n:keepalive\n"
	events, err := eventcheck.ReadSSE(strings.NewReader(in))
	if err != nil || len(events) != 3 || events[1].Payload.(agent.TextDonePayload).FullText != "Hi" {
		t.Fatalf("ReadSSE = %+v, %v", events, err)
	}
	if err := eventcheck.Check(events); err != nil {
		t.Error(err)
	}

	// A last frame without its blank line is lost by a browser.
	cut := strings.TrimSuffix(sse(t, textTurn()), "\n") // textTurn's last frame is data, not a keepalive
	if err := eventcheck.CheckSSE(strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "ends inside a frame") {
		t.Errorf("unterminated frame: %v", err)
	}
	mustViolate(t, "sse with two dones", eventcheck.CheckSSE(strings.NewReader(sse(t, append(textTurn(), textTurn()[8])))), 9, "a second terminal event")
	if err := eventcheck.CheckSSE(strings.NewReader("data: {\"type\":\"thinking_done\",\"thinking\":\"\"}\n\n")); err == nil || !strings.Contains(err.Error(), "line 2: thinking_done without round_index") {
		t.Errorf("missing round_index: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRecorder(t *testing.T) {
	var rec eventcheck.Recorder
	var sink agent.Sink = &rec
	for _, e := range toolTurn() {
		if err := sink.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Check(); err != nil {
		t.Error(err)
	}
	if got := rec.Events(); len(got) != len(toolTurn()) || got[4].Payload.(agent.ToolResultPayload).CallID != "c1" || !got[4].Outcome().Success {
		t.Errorf("Events = %+v", got)
	}

	var bad eventcheck.Recorder
	_ = bad.Emit(agent.TurnStarted("", "m"))
	if err := bad.Emit(agent.Event{Type: agent.EventDone}); err == nil {
		t.Error("a done without result was emitted")
	}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "event 1 (done)") {
		t.Errorf("Check = %v", err)
	}

	var order eventcheck.Recorder
	for _, e := range []agent.Event{agent.TurnStarted("", "m"), agent.TextDone(0, "x"), agent.TextChunk(0, "y")} {
		_ = order.Emit(e)
	}
	mustViolate(t, "recorder", order.Check(), 2, "assistant_text_chunk after assistant_text_done")
}

// The NDJSON and SSE readers agree with the events that were written.
func TestReadersRoundTrip(t *testing.T) {
	want := ndjson(t, continuation(tagCreated))
	for name, read := range map[string]func() ([]agent.Event, error){
		"ndjson": func() ([]agent.Event, error) { return eventcheck.ReadNDJSON(strings.NewReader(want)) },
		"sse": func() ([]agent.Event, error) {
			return eventcheck.ReadSSE(bytes.NewReader([]byte(sse(t, continuation(tagCreated)))))
		},
	} {
		events, err := read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ndjson(t, events); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
