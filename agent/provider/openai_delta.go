package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// callAssembler builds tool calls from the fragments an OpenAI-compatible
// stream sends. A call is found by its id or its index, whatever value the
// index starts at (some servers start at 1, or count text parts, or leave
// gaps), and is made only by a fragment that names a function: a fragment
// without a name continues a call, never starts one, so no call without a
// name reaches the agent.
type callAssembler struct {
	calls   []*partialCall
	byIndex map[int64]*partialCall
	byID    map[string]*partialCall
	// early holds argument text that came before any named call; the
	// first call takes it.
	early strings.Builder
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

// add takes one fragment. hasIndex is false when the server sent no index.
func (a *callAssembler) add(index int64, hasIndex bool, id, name, args string) {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int64]*partialCall{}, map[string]*partialCall{}
	}
	var c *partialCall
	if id != "" {
		c = a.byID[id]
	}
	if c == nil && hasIndex {
		// The same index with another id is another call (servers that
		// send every call at index 0).
		if x := a.byIndex[index]; x != nil && (id == "" || x.id == "" || x.id == id) {
			c = x
		}
	}
	if c == nil && name == "" && len(a.calls) > 0 {
		c = a.calls[len(a.calls)-1]
	}
	if c == nil {
		if name == "" {
			a.early.WriteString(args)
			return
		}
		c = &partialCall{name: name}
		a.calls = append(a.calls, c)
		if a.early.Len() > 0 {
			c.args.WriteString(a.early.String())
			a.early.Reset()
		}
	}
	if c.id == "" && id != "" {
		c.id = id
	}
	if c.id != "" {
		a.byID[c.id] = c
	}
	if hasIndex {
		a.byIndex[index] = c
	}
	c.args.WriteString(args)
}

// toolCalls are the assembled calls; a call without an id gets "call_<n>"
// and one without arguments "{}".
func (a *callAssembler) toolCalls() []ToolCall {
	var out []ToolCall
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		out = append(out, ToolCall{ID: id, Name: c.name, Arguments: json.RawMessage(args)})
	}
	return out
}

// contentPart is one part of a delta.content sent as an array of typed
// parts, as Mistral's reasoning (Magistral) models do:
//
//	[{"type":"thinking","thinking":[{"type":"text","text":"…"}]},{"type":"text","text":"…"}]
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// forEachPart calls fn with the thinking and text of each part of raw, a
// delta.content array, in order. It reports false when raw is not such an
// array (then the content is a plain string).
func forEachPart(raw string, fn func(thinking, text string) error) (bool, error) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "[") {
		return false, nil
	}
	var parts []contentPart
	if err := json.Unmarshal([]byte(raw), &parts); err != nil {
		return false, nil
	}
	for _, p := range parts {
		var err error
		switch p.Type {
		case "thinking", "reasoning":
			th := partsText(p.Thinking)
			if th == "" {
				th = p.Text
			}
			err = fn(th, "")
		case "text", "output_text", "":
			err = fn("", p.Text)
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// partsText is the text of a thinking field: a string, or an array of
// text parts.
func partsText(raw json.RawMessage) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
