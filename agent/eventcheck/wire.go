package eventcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/docent/docent/agent"
)

// CheckNDJSON reads the events of one turn as the CLI writes them with
// --json (one JSON object a line; blank lines are skipped), checks that each
// carries the fields of its type, and then Checks their order.
func CheckNDJSON(r io.Reader, opts ...Option) error {
	events, err := ReadNDJSON(r)
	if err != nil {
		return err
	}
	return Check(events, opts...)
}

// CheckSSE reads the events of one turn from an SSE body (`data: {json}`
// frames ended by a blank line; `:` comments such as keepalives and other
// fields are skipped), checks that each carries the fields of its type, and
// then Checks their order.
func CheckSSE(r io.Reader, opts ...Option) error {
	events, err := ReadSSE(r)
	if err != nil {
		return err
	}
	return Check(events, opts...)
}

// ReadNDJSON decodes NDJSON events, checking each one's fields (see
// CheckNDJSON). Errors name the line.
func ReadNDJSON(r io.Reader) ([]agent.Event, error) {
	var events []agent.Event
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			e, derr := decode(bytes.TrimSpace(b))
			if derr != nil {
				return events, fmt.Errorf("line %d: %w", line, derr)
			}
			events = append(events, e)
		}
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// ReadSSE decodes the events of an SSE body, checking each one's fields
// (see CheckSSE). Several data lines of one frame are joined with "\n", as
// EventSource does. A frame not ended by a blank line is an error: a
// browser would drop it. Errors name the line where the frame ends.
func ReadSSE(r io.Reader) ([]agent.Event, error) {
	var (
		events []agent.Event
		data   []string
		inData bool
	)
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return events, fmt.Errorf("line %d: %w", line, err)
		}
		eof := err != nil
		if eof && b == "" {
			if inData {
				return events, fmt.Errorf("line %d: the stream ends inside a frame (no blank line after its data)", line)
			}
			return events, nil
		}
		s := strings.TrimSuffix(strings.TrimSuffix(b, "\n"), "\r")
		switch {
		case s == "":
			if inData {
				e, derr := decode([]byte(strings.Join(data, "\n")))
				if derr != nil {
					return events, fmt.Errorf("line %d: %w", line, derr)
				}
				events = append(events, e)
			}
			data, inData = data[:0], false
		case strings.HasPrefix(s, ":"):
			// A comment: keepalive.
		default:
			field, value, _ := strings.Cut(s, ":")
			value = strings.TrimPrefix(value, " ")
			if field == "data" {
				data, inData = append(data, value), true
			}
		}
		if eof {
			if inData {
				return events, fmt.Errorf("line %d: the stream ends inside a frame (no blank line after its data)", line)
			}
			return events, nil
		}
	}
}

// Recorder is a Sink for tests: it encodes each event as a transport would,
// checks the JSON carries the fields of its type, and keeps the event as a
// client decodes it. Emit fails when an event does not encode; the first
// such failure is also returned by Check.
type Recorder struct {
	mu     sync.Mutex
	events []agent.Event
	err    error
}

// Emit records e.
func (r *Recorder) Emit(e agent.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := json.Marshal(e)
	if err == nil {
		e, err = decode(b)
	}
	if err != nil {
		err = fmt.Errorf("event %d (%s): %w", len(r.events), e.Type, err)
		if r.err == nil {
			r.err = err
		}
		return err
	}
	r.events = append(r.events, e)
	return nil
}

// Events returns the events recorded so far.
func (r *Recorder) Events() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// Check returns the first encoding failure, or else Check of the events.
func (r *Recorder) Check(opts ...Option) error {
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return Check(r.Events(), opts...)
}

// decode checks raw's fields and decodes it.
func decode(raw []byte) (agent.Event, error) {
	if err := checkShape(raw); err != nil {
		return agent.Event{}, err
	}
	var e agent.Event
	if err := json.Unmarshal(raw, &e); err != nil {
		return agent.Event{}, err
	}
	return e, nil
}

// fields are the fields each event type must carry, as the protocol's table
// lists them; arrays must be arrays, not null.
var fields = map[agent.EventType][]string{
	agent.EventTurnStarted:   {"thread_id", "model"},
	agent.EventThinkingChunk: {"chunk", "round_index"},
	agent.EventThinkingDone:  {"thinking", "round_index"},
	agent.EventTextChunk:     {"chunk", "round_index"},
	agent.EventTextDone:      {"full_text", "round_index"},
	agent.EventToolCalls:     {"round_index", "tool_calls[]", "needs_approval[]"},
	agent.EventToolResult:    {"round_index", "call_id", "name", "success"},
	agent.EventRoundExecuted: {"round_index", "thinking", "tool_calls[]"},
	agent.EventUsage:         {"round_index", "prompt_tokens", "completion_tokens"},
	agent.EventDone:          {"result"},
	agent.EventError:         {"error"},
}

var (
	resultFields        = []string{"text", "thinking", "thread_id", "working_state", "executed_rounds[]", "usage"}
	usageFields         = []string{"prompt_tokens", "completion_tokens"}
	callFields          = []string{"id", "name", "arguments"}
	executedCallFields  = []string{"id", "name", "arguments", "success", "preview"}
	executedRoundFields = []string{"round_index", "thinking", "tool_calls[]"}
)

// checkShape checks that an event's JSON has a known type and the fields
// of that type (more fields are allowed: the protocol welcomes additions).
func checkShape(raw []byte) error {
	obj, err := object(raw, "event")
	if err != nil {
		return err
	}
	var t agent.EventType
	if err := json.Unmarshal(obj["type"], &t); err != nil || t == "" {
		return fmt.Errorf("event without a string type: %s", raw)
	}
	want, ok := fields[t]
	if !ok {
		return fmt.Errorf("unknown event type %q", t)
	}
	where := string(t)
	if err := need(obj, where, want...); err != nil {
		return err
	}
	switch t {
	case agent.EventToolCalls:
		return items(obj["tool_calls"], where+".tool_calls", callFields)
	case agent.EventRoundExecuted:
		return items(obj["tool_calls"], where+".tool_calls", executedCallFields)
	case agent.EventDone:
		res, err := object(obj["result"], "done.result")
		if err != nil {
			return err
		}
		if err := need(res, "done.result", resultFields...); err != nil {
			return err
		}
		u, err := object(res["usage"], "done.result.usage")
		if err != nil {
			return err
		}
		if err := need(u, "done.result.usage", usageFields...); err != nil {
			return err
		}
		if _, err := object(res["working_state"], "done.result.working_state"); err != nil {
			return err
		}
		if tc, ok := res["tool_calls"]; ok {
			if err := items(tc, "done.result.tool_calls", callFields); err != nil {
				return err
			}
		}
		var rounds []json.RawMessage
		if err := json.Unmarshal(res["executed_rounds"], &rounds); err != nil {
			return fmt.Errorf("done.result.executed_rounds: %w", err)
		}
		for i, r := range rounds {
			where := fmt.Sprintf("done.result.executed_rounds[%d]", i)
			o, err := object(r, where)
			if err != nil {
				return err
			}
			if err := need(o, where, executedRoundFields...); err != nil {
				return err
			}
			if err := items(o["tool_calls"], where+".tool_calls", executedCallFields); err != nil {
				return err
			}
		}
	}
	return nil
}

// object decodes raw as a JSON object.
func object(raw []byte, where string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%s is not a JSON object: %.200s", where, raw)
	}
	return obj, nil
}

// need checks obj has the keys; a key ending in [] must be an array.
func need(obj map[string]json.RawMessage, where string, keys ...string) error {
	for _, k := range keys {
		name, array := strings.CutSuffix(k, "[]")
		v, ok := obj[name]
		if !ok {
			return fmt.Errorf("%s without %s", where, name)
		}
		if array && (len(v) == 0 || v[0] != '[') {
			return fmt.Errorf("%s: %s is %s, want an array", where, name, v)
		}
	}
	return nil
}

// items checks each element of the array raw has the keys.
func items(raw []byte, where string, keys []string) error {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("%s is not an array: %w", where, err)
	}
	for i, it := range list {
		w := fmt.Sprintf("%s[%d]", where, i)
		o, err := object(it, w)
		if err != nil {
			return err
		}
		if err := need(o, w, keys...); err != nil {
			return err
		}
	}
	return nil
}
