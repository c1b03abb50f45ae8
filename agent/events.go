package agent

import (
	"encoding/json"
	"fmt"

	"github.com/docent/docent/agent/provider"
)

// This file declares the events of a turn as agent-protocol.md ("Events" and
// the `result` object) names them. Every transport sends the same JSON: an
// SSE `data:` frame, a Wails runtime event, or one NDJSON line of the CLI.

// EventType is the `type` field of an event.
type EventType string

// The event types, in the order a round emits them.
const (
	// EventTurnStarted opens every turn, approve continuations included.
	EventTurnStarted EventType = "turn_started"
	// EventThinkingChunk is a piece of the model's reasoning.
	EventThinkingChunk EventType = "thinking_chunk"
	// EventThinkingDone carries a round's whole reasoning, as soon as it ends.
	EventThinkingDone EventType = "thinking_done"
	// EventTextChunk is a piece of the visible answer.
	EventTextChunk EventType = "assistant_text_chunk"
	// EventTextDone carries a round's whole visible answer.
	EventTextDone EventType = "assistant_text_done"
	// EventToolCalls lists the calls the model made in a round and which of
	// them need approval (if any does, the turn pauses).
	EventToolCalls EventType = "tool_calls"
	// EventToolResult is the outcome of one call.
	EventToolResult EventType = "tool_result"
	// EventRoundExecuted closes a round whose calls ran.
	EventRoundExecuted EventType = "round_executed"
	// EventUsage is the token count of a round's model call.
	EventUsage EventType = "usage"
	// EventDone ends a turn with its result.
	EventDone EventType = "done"
	// EventError ends a turn that failed.
	EventError EventType = "error"
)

// EventTypes lists every event type of the protocol.
var EventTypes = []EventType{
	EventTurnStarted, EventThinkingChunk, EventThinkingDone, EventTextChunk, EventTextDone,
	EventToolCalls, EventToolResult, EventRoundExecuted, EventUsage, EventDone, EventError,
}

// Terminal reports whether an event of this type ends the turn (done, error).
func (t EventType) Terminal() bool { return t == EventDone || t == EventError }

// HasRoundIndex reports whether events of this type carry round_index.
func (t EventType) HasRoundIndex() bool {
	switch t {
	case EventThinkingChunk, EventThinkingDone, EventTextChunk, EventTextDone,
		EventToolCalls, EventToolResult, EventRoundExecuted, EventUsage:
		return true
	}
	return false
}

// Event is one event of a turn. It is one flat struct: Type says which of
// the other fields are part of the event, and its JSON is exactly the
// protocol's object for that type (MarshalJSON writes the type's fields and
// no others; round_index 0 and success false are written, as the protocol
// requires them).
type Event struct {
	// Type is `type`: which event this is.
	Type EventType

	// ThreadID is turn_started's `thread_id`: the thread the turn belongs
	// to; a new thread's id when the turn started one, "" when the client
	// carries the history itself.
	ThreadID string
	// Model is turn_started's `model`: the model id with its provider
	// prefix, e.g. "ollama/qwen3:8b".
	Model string

	// RoundIndex is `round_index` of every event that belongs to a round
	// (see EventType.HasRoundIndex): 0-based, counted across the whole turn,
	// approvals included.
	RoundIndex int

	// Chunk is `chunk` of thinking_chunk and assistant_text_chunk: a piece of
	// the stream. Chunks may be coalesced for slow clients.
	Chunk string
	// Thinking is `thinking` of thinking_done and round_executed: the
	// round's whole reasoning.
	Thinking string
	// FullText is assistant_text_done's `full_text`: the round's whole
	// visible answer.
	FullText string

	// ToolCalls is tool_calls' `tool_calls`: the calls the model made this
	// round, in its order.
	ToolCalls []ToolCall
	// NeedsApproval is tool_calls' `needs_approval`: the ids of the calls
	// that need the user's approval; when it is not empty nothing in the
	// batch runs and the turn pauses.
	NeedsApproval []string

	// CallID is tool_result's `call_id`: the id of the call it answers.
	CallID string
	// Name is tool_result's `name`: the tool that ran.
	Name string
	// Success is tool_result's `success`; always written.
	Success bool
	// Result is tool_result's `result?`: the tool's JSON result, when it
	// succeeded.
	Result json.RawMessage
	// Preview is tool_result's `preview?`: a one-line summary for people.
	Preview string
	// Error is `error`: on tool_result (optional) why the call failed, as
	// the model is told; on error the human-readable reason the turn failed.
	Error string
	// Code is error's `code?`: a machine-readable kind of failure.
	Code string

	// Executed is round_executed's `tool_calls`: the calls that ran this
	// round, with their outcome.
	Executed []ExecutedCall

	// PromptTokens is usage's `prompt_tokens`.
	PromptTokens int
	// CompletionTokens is usage's `completion_tokens`.
	CompletionTokens int

	// TurnResult is done's `result`: what the turn produced.
	TurnResult *TurnResult

	// Created is what a successful tool_result's call created. It is not
	// on the wire: in-process sinks (auto-create's bookkeeping) read it.
	Created []Ref
}

// ToolCall is one call the model made: tool_calls' `tool_calls` items and,
// when a turn paused, result.tool_calls.
type ToolCall struct {
	// ID is `id`: the call id, unique within the turn.
	ID string `json:"id"`
	// Name is `name`: the tool's name.
	Name string `json:"name"`
	// Arguments is `arguments`: the JSON object the model sent. Written as
	// {} when empty; text that is not JSON (models produce it) is written
	// as a JSON string so the event still encodes.
	Arguments json.RawMessage `json:"arguments"`
}

// MarshalJSON writes the call with arguments that are always JSON.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	p := plain(c)
	p.Arguments = wireArguments(c.Arguments)
	return json.Marshal(p)
}

// ExecutedCall is a call that ran, with its outcome: round_executed's
// `tool_calls` items and result.executed_rounds[].tool_calls.
type ExecutedCall struct {
	// ID is `id`: the call id.
	ID string `json:"id"`
	// Name is `name`: the tool that ran.
	Name string `json:"name"`
	// Arguments is `arguments`: the arguments the call ran with (after any
	// edit the user made when approving it).
	Arguments json.RawMessage `json:"arguments"`
	// Success is `success`: whether the tool succeeded.
	Success bool `json:"success"`
	// Preview is `preview`: the one-line summary ("" when there is none).
	Preview string `json:"preview"`
	// Error is `error?`: why the call failed (a rejected call's is "User
	// rejected this action.").
	Error string `json:"error,omitempty"`
}

// MarshalJSON writes the call with arguments that are always JSON.
func (c ExecutedCall) MarshalJSON() ([]byte, error) {
	type plain ExecutedCall
	p := plain(c)
	p.Arguments = wireArguments(c.Arguments)
	return json.Marshal(p)
}

// ExecutedRound is a round whose calls ran: the fields of round_executed and
// the items of result.executed_rounds.
type ExecutedRound struct {
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
	// Thinking is `thinking`: the round's reasoning.
	Thinking string `json:"thinking"`
	// ToolCalls is `tool_calls`: the calls that ran, in order.
	ToolCalls []ExecutedCall `json:"tool_calls"`
}

// MarshalJSON writes tool_calls as [] when there are none.
func (r ExecutedRound) MarshalJSON() ([]byte, error) {
	type plain ExecutedRound
	p := plain(r)
	if p.ToolCalls == nil {
		p.ToolCalls = []ExecutedCall{}
	}
	return json.Marshal(p)
}

// Usage is a token count: usage events and result.usage.
type Usage = provider.Usage

// TurnResult is the protocol's `result`: done's payload, and the answer of
// a chat or approve request that does not stream.
type TurnResult struct {
	// Text is `text`: the final visible answer.
	Text string `json:"text"`
	// Thinking is `thinking`: the final round's reasoning.
	Thinking string `json:"thinking"`
	// ThreadID is `thread_id`: the thread the turn belongs to.
	ThreadID string `json:"thread_id"`
	// WorkingState is `working_state`: what the conversation last created,
	// updated or extracted.
	WorkingState WorkingState `json:"working_state"`
	// ExecutedRounds is `executed_rounds`: the rounds whose calls ran.
	ExecutedRounds []ExecutedRound `json:"executed_rounds"`
	// TurnID is `turn_id?`: present exactly when the turn paused; approve
	// it to continue.
	TurnID string `json:"turn_id,omitempty"`
	// ToolCalls is `tool_calls?`: present exactly when the turn paused, the
	// calls waiting for approval.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is `usage`: the tokens of the turn's model calls.
	Usage Usage `json:"usage"`
}

// Paused reports whether the turn paused for approval.
func (r TurnResult) Paused() bool { return r.TurnID != "" }

// MarshalJSON writes executed_rounds as [] when there are none.
func (r TurnResult) MarshalJSON() ([]byte, error) {
	type plain TurnResult
	p := plain(r)
	if p.ExecutedRounds == nil {
		p.ExecutedRounds = []ExecutedRound{}
	}
	return json.Marshal(p)
}

// Sink receives the events of a turn, in order. Each transport (SSE, Wails,
// CLI NDJSON) is a thin sink. An error from Emit means the client is gone:
// the turn stops after the current model call or tool, and owes no done.
type Sink interface {
	Emit(Event) error
}

// SinkFunc is a function used as a Sink.
type SinkFunc func(Event) error

// Emit calls f(e).
func (f SinkFunc) Emit(e Event) error { return f(e) }

// TurnStarted is turn_started.
func TurnStarted(threadID, model string) Event {
	return Event{Type: EventTurnStarted, ThreadID: threadID, Model: model}
}

// ThinkingChunk is thinking_chunk.
func ThinkingChunk(round int, chunk string) Event {
	return Event{Type: EventThinkingChunk, RoundIndex: round, Chunk: chunk}
}

// ThinkingDone is thinking_done.
func ThinkingDone(round int, thinking string) Event {
	return Event{Type: EventThinkingDone, RoundIndex: round, Thinking: thinking}
}

// TextChunk is assistant_text_chunk.
func TextChunk(round int, chunk string) Event {
	return Event{Type: EventTextChunk, RoundIndex: round, Chunk: chunk}
}

// TextDone is assistant_text_done.
func TextDone(round int, fullText string) Event {
	return Event{Type: EventTextDone, RoundIndex: round, FullText: fullText}
}

// ToolCalls is tool_calls: the round's calls and the ids of those that need
// approval.
func ToolCalls(round int, calls []ToolCall, needsApproval []string) Event {
	return Event{Type: EventToolCalls, RoundIndex: round, ToolCalls: calls, NeedsApproval: needsApproval}
}

// ToolResultEvent is tool_result: the outcome r of call callID of tool name.
// (It is not called ToolResult, which is the outcome's type.)
func ToolResultEvent(round int, callID, name string, r ToolResult) Event {
	return Event{
		Type: EventToolResult, RoundIndex: round, CallID: callID, Name: name,
		Success: r.Success, Result: r.Result, Preview: r.Preview, Error: r.Error, Created: r.Created,
	}
}

// RoundExecuted is round_executed.
func RoundExecuted(r ExecutedRound) Event {
	return Event{Type: EventRoundExecuted, RoundIndex: r.RoundIndex, Thinking: r.Thinking, Executed: r.ToolCalls}
}

// UsageEvent is usage: the tokens of round's model call.
func UsageEvent(round int, u Usage) Event {
	return Event{Type: EventUsage, RoundIndex: round, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

// Done is done.
func Done(r TurnResult) Event { return Event{Type: EventDone, TurnResult: &r} }

// ErrorEvent is error: message is for people, code ("" for none) for
// programs.
func ErrorEvent(message, code string) Event {
	return Event{Type: EventError, Error: message, Code: code}
}

// Round returns a round_executed event's fields as an ExecutedRound.
func (e Event) Round() ExecutedRound {
	return ExecutedRound{RoundIndex: e.RoundIndex, Thinking: e.Thinking, ToolCalls: e.Executed}
}

// Outcome returns a tool_result event's outcome as a ToolResult.
func (e Event) Outcome() ToolResult {
	return ToolResult{Success: e.Success, Result: e.Result, Preview: e.Preview, Error: e.Error}
}

// MarshalJSON writes the protocol's object for e.Type: `type` first, then
// the type's fields in the order of the protocol's table, and nothing else.
// An unknown type, or a done without a result, is an error.
func (e Event) MarshalJSON() ([]byte, error) {
	type typ struct {
		Type EventType `json:"type"`
	}
	t := typ{e.Type}
	switch e.Type {
	case EventTurnStarted:
		return json.Marshal(struct {
			typ
			ThreadID string `json:"thread_id"`
			Model    string `json:"model"`
		}{t, e.ThreadID, e.Model})
	case EventThinkingChunk, EventTextChunk:
		return json.Marshal(struct {
			typ
			Chunk      string `json:"chunk"`
			RoundIndex int    `json:"round_index"`
		}{t, e.Chunk, e.RoundIndex})
	case EventThinkingDone:
		return json.Marshal(struct {
			typ
			Thinking   string `json:"thinking"`
			RoundIndex int    `json:"round_index"`
		}{t, e.Thinking, e.RoundIndex})
	case EventTextDone:
		return json.Marshal(struct {
			typ
			FullText   string `json:"full_text"`
			RoundIndex int    `json:"round_index"`
		}{t, e.FullText, e.RoundIndex})
	case EventToolCalls:
		calls, needs := e.ToolCalls, e.NeedsApproval
		if calls == nil {
			calls = []ToolCall{}
		}
		if needs == nil {
			needs = []string{}
		}
		return json.Marshal(struct {
			typ
			RoundIndex    int        `json:"round_index"`
			ToolCalls     []ToolCall `json:"tool_calls"`
			NeedsApproval []string   `json:"needs_approval"`
		}{t, e.RoundIndex, calls, needs})
	case EventToolResult:
		var result json.RawMessage
		if len(e.Result) > 0 {
			result = wireArguments(e.Result)
		}
		return json.Marshal(struct {
			typ
			RoundIndex int             `json:"round_index"`
			CallID     string          `json:"call_id"`
			Name       string          `json:"name"`
			Success    bool            `json:"success"`
			Result     json.RawMessage `json:"result,omitempty"`
			Preview    string          `json:"preview,omitempty"`
			Error      string          `json:"error,omitempty"`
		}{t, e.RoundIndex, e.CallID, e.Name, e.Success, result, e.Preview, e.Error})
	case EventRoundExecuted:
		calls := e.Executed
		if calls == nil {
			calls = []ExecutedCall{}
		}
		return json.Marshal(struct {
			typ
			RoundIndex int            `json:"round_index"`
			Thinking   string         `json:"thinking"`
			ToolCalls  []ExecutedCall `json:"tool_calls"`
		}{t, e.RoundIndex, e.Thinking, calls})
	case EventUsage:
		return json.Marshal(struct {
			typ
			RoundIndex       int `json:"round_index"`
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}{t, e.RoundIndex, e.PromptTokens, e.CompletionTokens})
	case EventDone:
		if e.TurnResult == nil {
			return nil, fmt.Errorf("agent: done event without a result")
		}
		return json.Marshal(struct {
			typ
			Result *TurnResult `json:"result"`
		}{t, e.TurnResult})
	case EventError:
		return json.Marshal(struct {
			typ
			Error string `json:"error"`
			Code  string `json:"code,omitempty"`
		}{t, e.Error, e.Code})
	}
	return nil, fmt.Errorf("agent: unknown event type %q", e.Type)
}

// UnmarshalJSON reads an event as MarshalJSON writes it, so clients and
// tests can decode NDJSON lines and SSE frames. Fields that do not belong to
// the event's type are ignored; an unknown type keeps its name and the
// fields whose meaning does not depend on the type.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w struct {
		Type             EventType       `json:"type"`
		ThreadID         string          `json:"thread_id"`
		Model            string          `json:"model"`
		RoundIndex       int             `json:"round_index"`
		Chunk            string          `json:"chunk"`
		Thinking         string          `json:"thinking"`
		FullText         string          `json:"full_text"`
		ToolCalls        json.RawMessage `json:"tool_calls"`
		NeedsApproval    []string        `json:"needs_approval"`
		CallID           string          `json:"call_id"`
		Name             string          `json:"name"`
		Success          bool            `json:"success"`
		Result           json.RawMessage `json:"result"`
		Preview          string          `json:"preview"`
		Error            string          `json:"error"`
		Code             string          `json:"code"`
		PromptTokens     int             `json:"prompt_tokens"`
		CompletionTokens int             `json:"completion_tokens"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Type == "" {
		return fmt.Errorf("agent: event without a type")
	}
	ev := Event{Type: w.Type}
	if w.Type.HasRoundIndex() {
		ev.RoundIndex = w.RoundIndex
	}
	present := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	switch w.Type {
	case EventTurnStarted:
		ev.ThreadID, ev.Model = w.ThreadID, w.Model
	case EventThinkingChunk, EventTextChunk:
		ev.Chunk = w.Chunk
	case EventThinkingDone:
		ev.Thinking = w.Thinking
	case EventTextDone:
		ev.FullText = w.FullText
	case EventToolCalls:
		if present(w.ToolCalls) {
			if err := json.Unmarshal(w.ToolCalls, &ev.ToolCalls); err != nil {
				return fmt.Errorf("agent: tool_calls event: tool_calls: %w", err)
			}
		}
		ev.NeedsApproval = w.NeedsApproval
	case EventToolResult:
		ev.CallID, ev.Name, ev.Success, ev.Preview, ev.Error = w.CallID, w.Name, w.Success, w.Preview, w.Error
		if present(w.Result) {
			ev.Result = w.Result
		}
	case EventRoundExecuted:
		ev.Thinking = w.Thinking
		if present(w.ToolCalls) {
			if err := json.Unmarshal(w.ToolCalls, &ev.Executed); err != nil {
				return fmt.Errorf("agent: round_executed event: tool_calls: %w", err)
			}
		}
	case EventUsage:
		ev.PromptTokens, ev.CompletionTokens = w.PromptTokens, w.CompletionTokens
	case EventDone:
		if present(w.Result) {
			ev.TurnResult = new(TurnResult)
			if err := json.Unmarshal(w.Result, ev.TurnResult); err != nil {
				return fmt.Errorf("agent: done event: result: %w", err)
			}
		}
	case EventError:
		ev.Error, ev.Code = w.Error, w.Code
	}
	*e = ev
	return nil
}

// wireArguments returns raw as it goes on the wire: {} when empty, itself
// when it is JSON, and otherwise the text as a JSON string.
func wireArguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		return raw
	}
	return mustJSON(string(raw))
}
