package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/ollama/ollama/api"
)

// The api package keeps the top-level keys of a tool call's arguments in
// order (api.ToolCallFunctionArguments is an ordered map) but decodes every
// value as plain JSON, so a nested object becomes a map[string]any whose
// keys json.Marshal sorts. The key order is meaning here: a JSON Schema's
// properties are its fields in order (the export's columns, the order the
// model is asked for). So arguments are read from the raw stream line the
// frame was decoded from (attempt has it), and sent back with each value as
// raw JSON.

// rawToolArguments returns the arguments of each tool call in a frame's
// line as the server sent them, or nil when the line does not hold the
// calls the client decoded (same count, same names).
func rawToolArguments(line []byte, calls []api.ToolCall) []json.RawMessage {
	var f struct {
		Message struct {
			ToolCalls []struct {
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	}
	if len(line) == 0 || json.Unmarshal(line, &f) != nil || len(f.Message.ToolCalls) != len(calls) {
		return nil
	}
	out := make([]json.RawMessage, len(calls))
	for i, c := range f.Message.ToolCalls {
		if c.Function.Name != calls[i].Function.Name {
			return nil
		}
		out[i] = c.Function.Arguments
	}
	return out
}

// toolArguments is the JSON object text of a call's arguments: raw, the
// server's own text, when it is an object, else the client's decoded form
// ("{}" when empty).
func toolArguments(tc api.ToolCall, raw json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var b bytes.Buffer
		if err := json.Compact(&b, t); err == nil {
			return b.Bytes(), nil
		}
	}
	if tc.Function.Arguments.Len() == 0 {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(tc.Function.Arguments)
}

// orderedArguments turns a JSON object into the client's arguments with
// each value kept as raw JSON, so that the request carries the object's
// keys in their order at every depth.
func orderedArguments(raw json.RawMessage) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil {
		return args, err
	} else if t != json.Delim('{') {
		return args, errors.New("arguments are not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return args, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return args, err
		}
		args.Set(key, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return args, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return args, errors.New("arguments have text after the JSON object")
	}
	return args, nil
}
