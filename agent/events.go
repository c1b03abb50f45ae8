package agent

import (
	"encoding/json"
	"reflect"

	"github.com/docent/docent/agent/provider"
)

// This file declares the events of a turn as docs/protocol.md ("Events" and
// the `result` object) names them: one payload type per event type, whose
// JSON tags are the protocol's field names. Everything else is derived from
// these types: the wire JSON and its decoding (event_wire.go), the checker
// in agent/eventcheck, the SSE writer, the CLI printer, and the TypeScript
// types of the web UI (frontend/src/api/events.gen.ts, written by
// app/internal/tsgen with the rest of the web UI's contract).
//
// Adding an event type: declare its EventType constant and its payload type
// (fields with JSON tags and doc comments, an EventType method) here, add
// the payload to payloads below, run `go generate ./app/server/`, and give
// frontend/src/agent/reducer.ts a case for it (the TypeScript does not
// compile until it has one); events_test.go wants its JSON in golden.
//
// The wire rules every payload follows: a field without omitempty is always
// written (round_index 0, success false, "" strings); a slice without
// omitempty is written as [] when empty, never null; a json.RawMessage that
// is not JSON (model output) is written as a JSON string.

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

// payloads registers every event type's payload, in the order of the
// protocol's table: the one list of events. EventTypes, decoding and the
// generated TypeScript follow it.
var payloads = []Payload{
	TurnStartedPayload{}, ThinkingChunkPayload{}, ThinkingDonePayload{}, TextChunkPayload{}, TextDonePayload{},
	ToolCallsPayload{}, ToolResultPayload{}, RoundExecutedPayload{}, UsagePayload{}, DonePayload{}, ErrorPayload{},
}

// Payload is the body of one event: the fields beside `type`. Each event
// type has one payload type, registered in payloads.
type Payload interface {
	// EventType is the `type` of the events this payload is the body of.
	EventType() EventType
}

// TurnStartedPayload is turn_started: it opens every turn, approve
// continuations included.
type TurnStartedPayload struct {
	// ThreadID is `thread_id`: the thread the turn belongs to; a new
	// thread's id when the turn started one, "" when the client carries the
	// history itself.
	ThreadID string `json:"thread_id"`
	// Model is `model`: the model id with its provider prefix, e.g.
	// "ollama/qwen3:8b".
	Model string `json:"model"`
}

// ThinkingChunkPayload is thinking_chunk: a piece of the model's reasoning.
type ThinkingChunkPayload struct {
	// Chunk is `chunk`: a piece of the stream. Chunks may be coalesced for
	// slow clients.
	Chunk string `json:"chunk"`
	// RoundIndex is `round_index`: the round, 0-based, counted across the
	// whole turn, approvals included.
	RoundIndex int `json:"round_index"`
}

// ThinkingDonePayload is thinking_done: a round's whole reasoning, as soon
// as it ends.
type ThinkingDonePayload struct {
	// Thinking is `thinking`: the round's whole reasoning.
	Thinking string `json:"thinking"`
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
}

// TextChunkPayload is assistant_text_chunk: a piece of the visible answer.
type TextChunkPayload struct {
	// Chunk is `chunk`: a piece of the stream. Chunks may be coalesced for
	// slow clients.
	Chunk string `json:"chunk"`
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
}

// TextDonePayload is assistant_text_done: a round's whole visible answer.
type TextDonePayload struct {
	// FullText is `full_text`: the round's whole visible answer.
	FullText string `json:"full_text"`
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
}

// ToolCallsPayload is tool_calls: the calls the model made in a round and
// which of them need approval.
type ToolCallsPayload struct {
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
	// ToolCalls is `tool_calls`: the calls, in the model's order.
	ToolCalls []ToolCall `json:"tool_calls"`
	// NeedsApproval is `needs_approval`: the ids of the calls that need the
	// user's approval; when it is not empty nothing in the batch runs and
	// the turn pauses.
	NeedsApproval []string `json:"needs_approval"`
}

// ToolResultPayload is tool_result: the outcome of one call. The outcome's
// Created and Refused are not on the wire (Event.Created carries what the
// call created, in process).
type ToolResultPayload struct {
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
	// CallID is `call_id`: the id of the call this answers.
	CallID string `json:"call_id"`
	// Name is `name`: the tool that ran.
	Name string `json:"name"`
	// ToolResult is the outcome: `success` (always written), `result?` (the
	// tool's JSON result, when it succeeded), `preview?` (a one-line summary
	// for people) and `error?` (why it failed, as the model is told).
	ToolResult
	// ChangedExtraction is `changed_extraction?`: the call succeeded and
	// changed the document's extraction (its tool's ChangesExtraction), so
	// clients show the extraction again.
	ChangedExtraction bool `json:"changed_extraction,omitempty"`
}

// RoundExecutedPayload is round_executed: it closes a round whose calls
// ran. Its fields are those of an ExecutedRound.
type RoundExecutedPayload ExecutedRound

// UsagePayload is usage: the token count of a round's model call.
type UsagePayload struct {
	// RoundIndex is `round_index`.
	RoundIndex int `json:"round_index"`
	// Usage is `prompt_tokens` and `completion_tokens`.
	Usage
	// Speed is `first_token_ms?` and `tokens_per_second?`, when the round's
	// model call streamed.
	Speed
	// PromptTruncated is `prompt_truncated?`: present when the model server
	// cut the round's prompt to fit the model's context window (Ollama does
	// so silently), so that the model answered having seen only part of
	// it. Its `warning` says what was seen and what to change, for people.
	PromptTruncated *PromptTruncation `json:"prompt_truncated,omitempty"`
	// OutputTruncated is `output_truncated?`: present when the model
	// server stopped the round's answer at its output limit (done_reason
	// or finish_reason "length"), so that the answer is incomplete. Its
	// `warning` says so and what to change, for people.
	OutputTruncated *OutputTruncation `json:"output_truncated,omitempty"`
}

// PromptTruncation is what the model saw of a prompt the server cut:
// `kept_tokens` (as the server counted them) of a `window_tokens` window,
// `estimated_tokens` (Docent's estimate of the whole prompt), `dropped`
// ("start": the beginning was cut, instructions included; "messages":
// earlier messages were left out), `max_context` (DOCENT_MAX_CONTEXT),
// `model_context?` and `warning`.
type PromptTruncation = provider.PromptTruncation

// Speed is how fast a model call answered.
type Speed struct {
	// FirstTokenMS is `first_token_ms`: milliseconds from the call to its
	// first streamed token (thinking or text), the wait a person sees.
	FirstTokenMS int64 `json:"first_token_ms,omitempty"`
	// TokensPerSecond is `tokens_per_second`: completion tokens over the
	// time from the first token to the end.
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"`
}

// DonePayload is done: it ends a turn with its result.
type DonePayload struct {
	// Result is `result`: what the turn produced.
	Result TurnResult `json:"result"`
}

// ErrorPayload is error: it ends a turn that failed.
type ErrorPayload struct {
	// Error is `error`: why the turn failed, for people.
	Error string `json:"error"`
	// Code is `code?`: the kind of failure, for programs.
	Code string `json:"code,omitempty"`
}

func (TurnStartedPayload) EventType() EventType   { return EventTurnStarted }
func (ThinkingChunkPayload) EventType() EventType { return EventThinkingChunk }
func (ThinkingDonePayload) EventType() EventType  { return EventThinkingDone }
func (TextChunkPayload) EventType() EventType     { return EventTextChunk }
func (TextDonePayload) EventType() EventType      { return EventTextDone }
func (ToolCallsPayload) EventType() EventType     { return EventToolCalls }
func (ToolResultPayload) EventType() EventType    { return EventToolResult }
func (RoundExecutedPayload) EventType() EventType { return EventRoundExecuted }
func (UsagePayload) EventType() EventType         { return EventUsage }
func (DonePayload) EventType() EventType          { return EventDone }
func (ErrorPayload) EventType() EventType         { return EventError }

// Event is one event of a turn: its type and its payload. Its JSON is the
// protocol's object, `type` first and then the payload's fields
// (event_wire.go). Make one with NewEvent or the constructors below, which
// keep Type and Payload in agreement; an Event whose Payload is missing or
// of another type does not encode.
type Event struct {
	// Type is `type`: which event this is. A decoded event of a type this
	// build does not know keeps its name here, with no Payload.
	Type EventType
	// Payload is the event's fields: a value (not a pointer) of the type
	// registered for Type (TurnStartedPayload for turn_started, ...).
	Payload Payload
	// Created is what a successful tool_result's call created. It is not
	// on the wire: in-process sinks (auto-create's bookkeeping) read it.
	Created []Ref
}

// NewEvent is the event whose payload is p.
func NewEvent(p Payload) Event { return Event{Type: p.EventType(), Payload: p} }

// Terminal reports whether an event of this type ends the turn (done, error).
func (t EventType) Terminal() bool { return t == EventDone || t == EventError }

// HasRoundIndex reports whether events of this type carry round_index (their
// payload has that field).
func (t EventType) HasRoundIndex() bool {
	info, ok := eventRegistry[t]
	return ok && info.round != nil
}

// Round returns the event's round_index, and whether its type carries one.
func (e Event) Round() (int, bool) {
	info, ok := eventRegistry[e.Type]
	if !ok || info.round == nil || e.Payload == nil {
		return 0, false
	}
	v := reflect.ValueOf(e.Payload)
	if v.Type() != info.typ {
		return 0, false
	}
	return int(v.FieldByIndex(info.round).Int()), true
}

// Outcome returns a tool_result event's outcome, with what the call
// created; the zero ToolResult for other events.
func (e Event) Outcome() ToolResult {
	p, _ := e.Payload.(ToolResultPayload)
	r := p.ToolResult
	r.Created = e.Created
	return r
}

// PayloadsOf returns the payloads of type T among events, in order: e.g.
// PayloadsOf[ToolResultPayload](events) are a turn's tool results.
func PayloadsOf[T Payload](events []Event) []T {
	var out []T
	for _, e := range events {
		if p, ok := e.Payload.(T); ok {
			out = append(out, p)
		}
	}
	return out
}

// TurnStarted is turn_started.
func TurnStarted(threadID, model string) Event {
	return NewEvent(TurnStartedPayload{ThreadID: threadID, Model: model})
}

// ThinkingChunk is thinking_chunk.
func ThinkingChunk(round int, chunk string) Event {
	return NewEvent(ThinkingChunkPayload{Chunk: chunk, RoundIndex: round})
}

// ThinkingDone is thinking_done.
func ThinkingDone(round int, thinking string) Event {
	return NewEvent(ThinkingDonePayload{Thinking: thinking, RoundIndex: round})
}

// TextChunk is assistant_text_chunk.
func TextChunk(round int, chunk string) Event {
	return NewEvent(TextChunkPayload{Chunk: chunk, RoundIndex: round})
}

// TextDone is assistant_text_done.
func TextDone(round int, fullText string) Event {
	return NewEvent(TextDonePayload{FullText: fullText, RoundIndex: round})
}

// ToolCalls is tool_calls: the round's calls and the ids of those that need
// approval.
func ToolCalls(round int, calls []ToolCall, needsApproval []string) Event {
	return NewEvent(ToolCallsPayload{RoundIndex: round, ToolCalls: calls, NeedsApproval: needsApproval})
}

// ToolResultEvent is tool_result: the outcome r of call callID of tool name.
// (It is not called ToolResult, which is the outcome's type.) What r
// created goes to Event.Created, not on the wire.
func ToolResultEvent(round int, callID, name string, r ToolResult) Event {
	created := r.Created
	r.Created, r.Refused = nil, false
	p := ToolResultPayload{RoundIndex: round, CallID: callID, Name: name, ToolResult: r}
	if t, ok := ToolByName(name); ok && r.Success {
		p.ChangedExtraction = t.ChangesExtraction
	}
	e := NewEvent(p)
	e.Created = created
	return e
}

// RoundExecuted is round_executed.
func RoundExecuted(r ExecutedRound) Event { return NewEvent(RoundExecutedPayload(r)) }

// UsageEvent is usage: the tokens of round's model call.
func UsageEvent(round int, u Usage) Event {
	return NewEvent(UsagePayload{RoundIndex: round, Usage: u})
}

// TimedUsageEvent is usage with the call's speed.
func TimedUsageEvent(round int, u Usage, sp Speed) Event {
	return NewEvent(UsagePayload{RoundIndex: round, Usage: u, Speed: sp})
}

// Done is done.
func Done(r TurnResult) Event { return NewEvent(DonePayload{Result: r}) }

// ErrorEvent is error: message is for people, code ("" for none) for
// programs.
func ErrorEvent(message, code string) Event {
	return NewEvent(ErrorPayload{Error: message, Code: code})
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
	// Summary is `summary?`: what the call will do, for people, as it was
	// when the model made it (Summarize); every edge shows it as it is.
	Summary *Summary `json:"summary,omitempty"`
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

// TurnUsage is result.usage: the tokens of the turn's rounds, and the
// cost of every model call the turn made (its rounds and the calls its
// tools made, such as run_extraction's), across pauses.
type TurnUsage struct {
	Usage
	// CostUSD is `cost_usd?`: the sum of the priced calls' costs (0 on a
	// local model); absent when no call had a known price.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// UnpricedCalls is `unpriced_calls?`: how many calls had no known
	// price, so CostUSD is not the whole cost; absent when 0.
	UnpricedCalls int `json:"unpriced_calls,omitempty"`
}

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
	// Usage is `usage`: the tokens of the turn's rounds and what the
	// turn's model calls cost.
	Usage TurnUsage `json:"usage"`
	// HistoryTurnID is `history_turn_id?`: present when the turn's tool
	// calls changed something, the turn's id in the history (all its
	// changes, before and after pauses), to list or undo them as one
	// (GET /api/history?turn=…, POST /api/history/turns/{id}/undo).
	HistoryTurnID string `json:"history_turn_id,omitempty"`
	// Citations is `citations?`: what the answer cites as [n], in the
	// order of n; present when it cites anything the thread produced.
	Citations []Citation `json:"citations,omitempty"`
	// UnknownCitations is `unknown_citations?`: numbers the answer cites
	// as [n] that the thread never produced, flagged, never dropped.
	UnknownCitations []int `json:"unknown_citations,omitempty"`
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
