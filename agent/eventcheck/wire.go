package eventcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/jsonfields"
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

// checkShape checks that an event's JSON has a known type and the members
// its payload type always writes, recursively (more members are allowed:
// the protocol welcomes additions). What is required is derived from the
// payload types' JSON tags: a member without omitempty must be there; an
// array member must be an array, an object member an object, and strings,
// numbers and booleans must be of their kind.
func checkShape(raw []byte) error {
	obj, err := object(raw, "event")
	if err != nil {
		return err
	}
	var t agent.EventType
	if err := json.Unmarshal(obj["type"], &t); err != nil || t == "" {
		return fmt.Errorf("event without a string type: %s", raw)
	}
	typ, ok := agent.PayloadType(t)
	if !ok {
		return fmt.Errorf("unknown event type %q", t)
	}
	return members(obj, string(t), typ)
}

// members checks obj against the fields of struct type typ.
func members(obj map[string]json.RawMessage, where string, typ reflect.Type) error {
	fields := jsonfields.Of(typ)
	for _, f := range fields {
		if _, ok := obj[f.Name]; !ok && !f.Optional {
			return fmt.Errorf("%s without %s", where, f.Name)
		}
	}
	for _, f := range fields {
		if v, ok := obj[f.Name]; ok {
			if err := value(v, where+"."+f.Name, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// value checks that v is JSON of Go type t.
func value(v json.RawMessage, where string, t reflect.Type) error {
	null := string(v) == "null"
	if t.Kind() == reflect.Pointer {
		if null {
			return nil
		}
		t = t.Elem()
	}
	kind := func(want string, ok bool) error {
		if !ok {
			return fmt.Errorf("%s is %.200s, want %s", where, v, want)
		}
		return nil
	}
	switch {
	case jsonfields.IsRaw(t), t.Kind() == reflect.Interface:
		return nil
	case jsonfields.IsTime(t):
		return kind("a string", len(v) > 0 && v[0] == '"')
	case jsonfields.IsArray(t):
		if err := kind("an array", len(v) > 0 && v[0] == '['); err != nil {
			return err
		}
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			return fmt.Errorf("%s is not an array: %w", where, err)
		}
		for i, it := range list {
			if err := value(it, fmt.Sprintf("%s[%d]", where, i), t.Elem()); err != nil {
				return err
			}
		}
	case jsonfields.IsObject(t):
		o, err := object(v, where)
		if err != nil {
			return err
		}
		return members(o, where, t)
	case t.Kind() == reflect.Map:
		o, err := object(v, where)
		if err != nil {
			return err
		}
		for k, it := range o {
			if err := value(it, where+"."+k, t.Elem()); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.String:
		return kind("a string", len(v) > 0 && v[0] == '"')
	case t.Kind() == reflect.Bool:
		return kind("a boolean", string(v) == "true" || string(v) == "false")
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return kind("a number", len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'))
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
