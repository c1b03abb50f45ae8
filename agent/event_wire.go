package agent

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/docent/docent/agent/jsonfields"
)

// This file derives the wire form of events from the payload types of
// events.go: the registry of event types, the JSON encoding with the
// protocol's rules, and decoding by type name.

// payloadInfo is what the registry knows of one event type.
type payloadInfo struct {
	typ reflect.Type
	// round is the index path of the payload's round_index field; nil when
	// it has none.
	round []int
	// arrays are the slices written as [] when nil; raw the
	// json.RawMessage fields written as a JSON string when not JSON.
	arrays, raw [][]int
}

var (
	// eventRegistry maps an event type to its payload.
	eventRegistry = map[EventType]payloadInfo{}
	// EventTypes lists every event type of the protocol, in the order of
	// its table.
	EventTypes []EventType
)

func init() {
	for _, p := range payloads {
		t := p.EventType()
		if _, dup := eventRegistry[t]; dup {
			panic(fmt.Sprintf("agent: event type %q registered twice", t))
		}
		info := payloadInfo{typ: reflect.TypeOf(p)}
		for _, f := range jsonfields.Of(info.typ) {
			switch {
			case f.Name == "round_index":
				info.round = f.Index
			case jsonfields.IsArray(f.Type) && f.Type.Kind() == reflect.Slice && !f.Optional:
				info.arrays = append(info.arrays, f.Index)
			case jsonfields.IsRaw(f.Type):
				info.raw = append(info.raw, f.Index)
			}
		}
		eventRegistry[t] = info
		EventTypes = append(EventTypes, t)
	}
}

// PayloadType returns the Go type of an event type's payload, and whether
// the event type is known.
func PayloadType(t EventType) (reflect.Type, bool) {
	info, ok := eventRegistry[t]
	return info.typ, ok
}

// MarshalJSON writes the protocol's object for the event: `type` first, then
// the payload's fields as its JSON tags name them, with the wire rules of
// events.go. An event without a registered payload of its type is an error.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Payload == nil {
		if _, known := eventRegistry[e.Type]; !known {
			return nil, fmt.Errorf("agent: unknown event type %q", e.Type)
		}
		return nil, fmt.Errorf("agent: %s event without its payload", e.Type)
	}
	t := e.Payload.EventType()
	info, ok := eventRegistry[t]
	v := reflect.ValueOf(e.Payload) // a value: a pointer to a payload is not registered
	switch {
	case !ok || v.Type() != info.typ:
		return nil, fmt.Errorf("agent: payload type %T is not registered", e.Payload)
	case e.Type != t:
		return nil, fmt.Errorf("agent: %s event with a %s payload", e.Type, t)
	}
	if len(info.arrays)+len(info.raw) > 0 {
		w := reflect.New(info.typ).Elem()
		w.Set(v)
		for _, idx := range info.arrays {
			if f := w.FieldByIndex(idx); f.IsNil() {
				f.Set(reflect.MakeSlice(f.Type(), 0, 0))
			}
		}
		for _, idx := range info.raw {
			f := w.FieldByIndex(idx)
			if raw := f.Bytes(); len(raw) > 0 && !json.Valid(raw) {
				f.SetBytes(mustJSON(string(raw)))
			}
		}
		v = w
	}
	body, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("agent: %s event: %w", t, err)
	}
	typ, _ := json.Marshal(t)
	out := make([]byte, 0, len(body)+len(typ)+10)
	out = append(out, `{"type":`...)
	out = append(out, typ...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// UnmarshalJSON reads an event as MarshalJSON writes it, so clients and
// tests can decode NDJSON lines and SSE frames: the payload type registered
// for `type`, which ignores the fields of other types. An unknown type
// (an addition to the protocol) keeps its name and has no payload.
func (e *Event) UnmarshalJSON(data []byte) error {
	var head struct {
		Type EventType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	if head.Type == "" {
		return fmt.Errorf("agent: event without a type")
	}
	info, ok := eventRegistry[head.Type]
	if !ok {
		*e = Event{Type: head.Type}
		return nil
	}
	p := reflect.New(info.typ)
	if err := json.Unmarshal(data, p.Interface()); err != nil {
		return fmt.Errorf("agent: %s event: %w", head.Type, err)
	}
	*e = Event{Type: head.Type, Payload: p.Elem().Interface().(Payload)}
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
