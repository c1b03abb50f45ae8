// Package eventcheck checks that the events of a turn follow the ordering
// rules of docs/protocol.md ("Events"): turn_started first, exactly one
// done or error and it is last, rounds counted up from 0 without gaps, the
// order of events within a round, tool results that answer the round's
// calls, and a done that carries turn_id and tool_calls exactly when the
// turn paused for approval.
//
// Check takes decoded events; CheckNDJSON and CheckSSE read them from a CLI
// stream or an SSE body and also check each event's JSON carries the fields
// of its type. A Recorder is a Sink for tests that does the same for events
// emitted in process. Nothing here imports testing; every check returns an
// error.
package eventcheck

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/docent/docent/agent"
)

// Violation is the first event that breaks a rule.
type Violation struct {
	// Index is the event's position in the turn, from 0; len(events) when
	// the turn ended without its terminal event.
	Index int
	// Type is the offending event's type ("" at the end of the turn).
	Type agent.EventType
	// Reason says which rule it breaks and why.
	Reason string
}

func (v *Violation) Error() string {
	if v.Type == "" {
		return fmt.Sprintf("event %d: %s", v.Index, v.Reason)
	}
	return fmt.Sprintf("event %d (%s): %s", v.Index, v.Type, v.Reason)
}

// Option changes what Check expects.
type Option func(*config)

type config struct {
	continuation bool
	from         int
	pending      []agent.ToolCall
	err          error
}

// ContinuationFrom checks an approve continuation: the events of an approve
// request, which continue a turn that paused in round `round`. The
// continuation also starts with turn_started; its first round is `round`,
// whose tool_results answer the pending calls (the batch that paused),
// announced in the paused turn's tool_calls event. Without pending, the
// call ids of that round's results are only checked for duplicates.
func ContinuationFrom(round int, pending ...agent.ToolCall) Option {
	return func(c *config) {
		c.continuation, c.from, c.pending = true, round, pending
	}
}

// ContinuationOf is ContinuationFrom for the continuation of paused, the
// events of a turn that paused: the round and the batch are those of its
// last tool_calls event.
func ContinuationOf(paused []agent.Event) Option {
	return func(c *config) {
		for i := len(paused) - 1; i >= 0; i-- {
			if p, ok := paused[i].Payload.(agent.ToolCallsPayload); ok {
				c.continuation, c.from, c.pending = true, p.RoundIndex, p.ToolCalls
				return
			}
		}
		c.err = errors.New("eventcheck: ContinuationOf: the paused turn has no tool_calls event")
	}
}

// round is what has happened so far in the current round.
type round struct {
	index                        int
	thinkingChunks, textChunks   bool
	thinkingDone, textDone       bool
	toolCalls                    bool // the round's calls are known
	seeded                       bool // ...from a continuation's pending calls
	anyIDs                       bool // ...but not which (continuation without pending)
	calls                        []agent.ToolCall
	needs                        []string
	results                      []string // call ids, in order
	resultSuccess                map[string]bool
	executed                     bool
	executedAt, toolCallsAt, end int
}

func (r *round) call(id string) (agent.ToolCall, bool) {
	i := slices.IndexFunc(r.calls, func(c agent.ToolCall) bool { return c.ID == id })
	if i < 0 {
		return agent.ToolCall{}, false
	}
	return r.calls[i], true
}

func (r *round) paused() bool { return len(r.needs) > 0 }

// Check returns the first violation of the protocol's ordering rules in the
// events of one turn, as a *Violation, or nil.
func Check(events []agent.Event, opts ...Option) error {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return cfg.err
	}
	if len(events) == 0 {
		return &Violation{Index: 0, Reason: "no events: a turn starts with turn_started and ends with done or error"}
	}
	var (
		threadID string
		cur      *round
		terminal = -1
		executed []int // round indexes of round_executed events
	)
	for i, e := range events {
		bad := func(format string, args ...any) error {
			return &Violation{Index: i, Type: e.Type, Reason: fmt.Sprintf(format, args...)}
		}
		if typ, known := agent.PayloadType(e.Type); !known {
			return bad("unknown event type %q", e.Type)
		} else if e.Payload == nil || reflect.TypeOf(e.Payload) != typ {
			return bad("%s event without its payload (%T)", e.Type, e.Payload)
		}
		if terminal >= 0 {
			if e.Type.Terminal() {
				return bad("a second terminal event: the turn already ended with %s at event %d; done or error is unique per turn", events[terminal].Type, terminal)
			}
			return bad("event after the turn ended with %s at event %d; done or error is last", events[terminal].Type, terminal)
		}
		if i == 0 && e.Type != agent.EventTurnStarted {
			return bad("the first event of a turn must be turn_started")
		}

		if r, ok := e.Round(); ok {
			switch {
			case r < 0:
				return bad("round_index %d is negative", r)
			case cur == nil:
				start := 0
				if cfg.continuation {
					start = cfg.from
				}
				if r != start {
					if cfg.continuation {
						return bad("the continuation's first round is %d, want %d (the round that paused)", r, start)
					}
					return bad("the first round_index of a turn is %d, want 0 (an approve continuation is checked with ContinuationFrom)", r)
				}
				cur = newRound(r)
				if cfg.continuation {
					cur.toolCalls, cur.seeded = true, true
					cur.calls = cfg.pending
					cur.anyIDs = len(cfg.pending) == 0
				}
			case r < cur.index:
				return bad("round_index went back from %d to %d; it never decreases", cur.index, r)
			case r > cur.index:
				if r != cur.index+1 {
					return bad("round_index skipped from %d to %d; rounds are counted without gaps", cur.index, r)
				}
				if cur.paused() {
					return bad("round %d started after round %d paused for approval (needs_approval %v); a paused turn ends with done", r, cur.index, cur.needs)
				}
				if !cur.executed {
					return bad("round %d started before round %d was closed by round_executed; only a round whose calls ran continues the turn", r, cur.index)
				}
				cur = newRound(r)
			default:
				if cur.executed && e.Type != agent.EventUsage {
					return bad("%s of round %d after its round_executed (event %d), which closes the round", e.Type, r, cur.executedAt)
				}
			}
		}

		switch p := e.Payload.(type) {
		case agent.TurnStartedPayload:
			if i != 0 {
				return bad("turn_started again; it opens the turn and comes once")
			}
			if p.Model == "" {
				return bad("turn_started without a model")
			}
			threadID = p.ThreadID

		case agent.ThinkingChunkPayload:
			switch {
			case cur.toolCalls && !cur.seeded:
				return bad("thinking_chunk after tool_calls in round %d", cur.index)
			case cur.thinkingDone:
				return bad("thinking_chunk after thinking_done in round %d", cur.index)
			case cur.textDone:
				return bad("thinking_chunk after assistant_text_done in round %d", cur.index)
			}
			cur.thinkingChunks = true

		case agent.ThinkingDonePayload:
			switch {
			case cur.toolCalls && !cur.seeded:
				return bad("thinking_done after tool_calls in round %d", cur.index)
			case cur.thinkingDone:
				return bad("a second thinking_done in round %d", cur.index)
			case cur.textDone:
				return bad("thinking_done after assistant_text_done in round %d; thinking_done comes as soon as thinking ends", cur.index)
			}
			cur.thinkingDone = true

		case agent.TextChunkPayload:
			switch {
			case cur.toolCalls && !cur.seeded:
				return bad("assistant_text_chunk after tool_calls in round %d", cur.index)
			case cur.textDone:
				return bad("assistant_text_chunk after assistant_text_done in round %d", cur.index)
			}
			cur.textChunks = true

		case agent.TextDonePayload:
			switch {
			case cur.toolCalls && !cur.seeded:
				return bad("assistant_text_done after tool_calls in round %d", cur.index)
			case cur.textDone:
				return bad("a second assistant_text_done in round %d", cur.index)
			case cur.thinkingChunks && !cur.thinkingDone:
				return bad("assistant_text_done before thinking_done in round %d, whose thinking was streamed", cur.index)
			}
			cur.textDone = true

		case agent.ToolCallsPayload:
			switch {
			case cur.toolCalls && !(cur.seeded && len(cur.results) == 0):
				return bad("a second tool_calls in round %d (first at event %d)", cur.index, cur.toolCallsAt)
			case cur.thinkingChunks && !cur.thinkingDone:
				return bad("tool_calls before thinking_done in round %d, whose thinking was streamed", cur.index)
			case cur.textChunks && !cur.textDone:
				return bad("tool_calls before assistant_text_done in round %d, whose text was streamed", cur.index)
			case len(p.ToolCalls) == 0:
				return bad("tool_calls without calls")
			}
			ids := map[string]bool{}
			for _, c := range p.ToolCalls {
				if c.ID == "" || c.Name == "" {
					return bad("a call without id or name: %+v", c)
				}
				if ids[c.ID] {
					return bad("call id %q appears twice", c.ID)
				}
				ids[c.ID] = true
			}
			for j, id := range p.NeedsApproval {
				if !ids[id] {
					return bad("needs_approval names %q, which is not among the round's calls", id)
				}
				if slices.Contains(p.NeedsApproval[:j], id) {
					return bad("needs_approval names %q twice", id)
				}
			}
			cur.toolCalls, cur.seeded, cur.anyIDs = true, false, false
			cur.calls, cur.needs, cur.toolCallsAt = p.ToolCalls, p.NeedsApproval, i

		case agent.ToolResultPayload:
			if !cur.toolCalls {
				return bad("tool_result for call %q before round %d's tool_calls", p.CallID, cur.index)
			}
			if cur.paused() {
				return bad("tool_result for call %q in round %d, whose batch needs approval (%v): nothing in the batch runs before approve", p.CallID, cur.index, cur.needs)
			}
			if !cur.anyIDs {
				c, ok := cur.call(p.CallID)
				if !ok {
					return bad("tool_result for call %q, which is not among round %d's calls %v", p.CallID, cur.index, callIDs(cur.calls))
				}
				if p.Name != c.Name {
					return bad("tool_result for call %q names tool %q; the call was to %q", p.CallID, p.Name, c.Name)
				}
			}
			if slices.Contains(cur.results, p.CallID) {
				return bad("a second tool_result for call %q in round %d", p.CallID, cur.index)
			}
			cur.results = append(cur.results, p.CallID)
			cur.resultSuccess[p.CallID] = p.Success

		case agent.RoundExecutedPayload:
			if !cur.toolCalls {
				return bad("round_executed of round %d, which has no tool_calls", cur.index)
			}
			if cur.paused() {
				return bad("round_executed of round %d, which paused for approval", cur.index)
			}
			if !cur.anyIDs {
				for _, c := range cur.calls {
					if !slices.Contains(cur.results, c.ID) {
						return bad("round_executed of round %d before the tool_result of call %q; it comes after the round's results", cur.index, c.ID)
					}
				}
			}
			got := make([]string, len(p.ToolCalls))
			for j, c := range p.ToolCalls {
				got[j] = c.ID
				if s, ok := cur.resultSuccess[c.ID]; ok && s != c.Success {
					return bad("round_executed says call %q success=%v; its tool_result said %v", c.ID, c.Success, s)
				}
			}
			if !slices.Equal(got, cur.results) {
				return bad("round_executed of round %d lists calls %v; the round's tool_results were %v", cur.index, got, cur.results)
			}
			cur.executed, cur.executedAt = true, i
			executed = append(executed, cur.index)

		case agent.UsagePayload:
			if p.PromptTokens < 0 || p.CompletionTokens < 0 {
				return bad("negative token count (prompt %d, completion %d)", p.PromptTokens, p.CompletionTokens)
			}

		case agent.DonePayload:
			if err := checkDone(p.Result, cur, threadID, executed); err != "" {
				return bad("%s", err)
			}
			terminal = i

		case agent.ErrorPayload:
			if strings.TrimSpace(p.Error) == "" {
				return bad("error without a message")
			}
			terminal = i
		}
	}
	if terminal < 0 {
		return &Violation{Index: len(events), Reason: fmt.Sprintf("the turn did not end: no done or error after %d events", len(events))}
	}
	return nil
}

func newRound(i int) *round { return &round{index: i, resultSuccess: map[string]bool{}} }

// checkDone checks done against the turn so far; it returns why it is
// wrong, or "".
func checkDone(res agent.TurnResult, cur *round, threadID string, executed []int) string {
	if cur != nil {
		if cur.thinkingChunks && !cur.thinkingDone {
			return fmt.Sprintf("done before thinking_done of round %d, whose thinking was streamed; *_done always arrives", cur.index)
		}
		if cur.textChunks && !cur.textDone {
			return fmt.Sprintf("done before assistant_text_done of round %d, whose text was streamed; *_done always arrives", cur.index)
		}
	}
	if res.ThreadID != threadID {
		return fmt.Sprintf("result.thread_id %q differs from turn_started's %q", res.ThreadID, threadID)
	}
	if res.Usage.PromptTokens < 0 || res.Usage.CompletionTokens < 0 {
		return fmt.Sprintf("result.usage has a negative token count (%+v)", res.Usage)
	}
	for _, r := range executed {
		if !slices.ContainsFunc(res.ExecutedRounds, func(x agent.ExecutedRound) bool { return x.RoundIndex == r }) {
			return fmt.Sprintf("result.executed_rounds lacks round %d, which round_executed reported", r)
		}
	}
	paused := cur != nil && cur.paused()
	switch {
	case paused && res.TurnID == "":
		return fmt.Sprintf("the turn paused in round %d (needs_approval %v) but result has no turn_id", cur.index, cur.needs)
	case paused && len(res.ToolCalls) == 0:
		return fmt.Sprintf("the turn paused in round %d (needs_approval %v) but result has no tool_calls", cur.index, cur.needs)
	case !paused && res.TurnID != "":
		return fmt.Sprintf("result has turn_id %q but the turn did not pause", res.TurnID)
	case !paused && len(res.ToolCalls) > 0:
		return fmt.Sprintf("result has tool_calls %v but the turn did not pause", callIDs(res.ToolCalls))
	}
	if paused {
		pending := callIDs(res.ToolCalls)
		for _, id := range pending {
			if _, ok := cur.call(id); !ok {
				return fmt.Sprintf("result.tool_calls names %q, which is not among the paused round's calls %v", id, callIDs(cur.calls))
			}
		}
		for _, id := range cur.needs {
			if !slices.Contains(pending, id) {
				return fmt.Sprintf("result.tool_calls lacks %q, which needs approval", id)
			}
		}
	}
	return ""
}

func callIDs(calls []agent.ToolCall) []string {
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return ids
}
