package agent

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/docent/docent/storage"
)

// SummarizeStored gives the tool calls of a stored thread that have no
// summary one, so that every edge shows a stored call as it shows a live
// one: threads stored before calls carried summaries hold none. An
// assistant message's calls and a tool message's data get the summary a
// fresh call with the stored (proposed) arguments would get now, in th's
// document and working state. A call of a tool that no longer exists is
// left without one (the edges name it by its tool), and so is a message
// whose stored JSON does not read. msgs are changed in place; fields the
// summary is added beside are kept as stored.
func SummarizeStored(ctx context.Context, db *storage.DB, th storage.Thread, msgs []storage.ThreadMessage) {
	var env *ToolEnv // made on the first call that needs it: most threads need none
	summary := func(name string, args json.RawMessage) (json.RawMessage, bool) {
		if _, known := ToolByName(name); !known {
			return nil, false
		}
		if env == nil {
			env = &ToolEnv{DB: db, DocumentID: th.DocumentID, State: &WorkingState{}}
			// A working state that does not read is no state: the
			// summary then names things by the model's references.
			_ = json.Unmarshal(th.WorkingState, env.State)
		}
		raw, err := json.Marshal(Summarize(ctx, env, name, args))
		return raw, err == nil
	}
	byCall := map[string]json.RawMessage{} // the summaries given to calls, for their tool messages
	for i, m := range msgs {
		switch m.Role {
		case storage.RoleAssistant:
			if raw, ok := summarizeCalls(m.ToolCalls, byCall, summary); ok {
				msgs[i].ToolCalls = raw
			}
		case storage.RoleTool:
			if raw, ok := summarizeToolData(m, byCall, summary); ok {
				msgs[i].Data = raw
			}
		}
	}
}

type summaryFunc func(name string, args json.RawMessage) (json.RawMessage, bool)

// summarizeCalls adds a summary to each call of a stored tool_calls array
// that lacks one, and notes every call's summary in byCall; ok is false
// when nothing changed.
func summarizeCalls(stored json.RawMessage, byCall map[string]json.RawMessage, summary summaryFunc) (json.RawMessage, bool) {
	if len(stored) == 0 {
		return nil, false
	}
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(stored, &calls); err != nil {
		return nil, false
	}
	changed := false
	for _, c := range calls {
		var id, name string
		_ = json.Unmarshal(c["id"], &id)
		_ = json.Unmarshal(c["name"], &name)
		if s, has := c["summary"]; has {
			if d, ok := declared(name, s); ok {
				c["summary"], s, changed = d, d, true
			}
			byCall[id] = s
			continue
		}
		if s, ok := summary(name, c["arguments"]); ok {
			c["summary"], byCall[id], changed = s, s, true
		}
	}
	if !changed {
		return nil, false
	}
	raw, err := json.Marshal(calls)
	return raw, err == nil
}

// declared is a stored summary of a call of tool with what the registry
// declares of the tool now (Summary.declare), which a summary stored
// before summaries carried it lacks; the rest stays as stored. ok is false
// when nothing changes: the tool is unknown, the summary does not read, or
// it says it already.
func declared(tool string, stored json.RawMessage) (json.RawMessage, bool) {
	t, known := ToolByName(tool)
	var s map[string]json.RawMessage
	if !known || json.Unmarshal(stored, &s) != nil || s == nil {
		return nil, false
	}
	var d Summary
	d.declare(t)
	changed := false
	set := func(k string, v any, present bool) {
		want := mustJSON(v)
		if old, has := s[k]; has != present || present && !bytes.Equal(old, want) {
			changed = true
		}
		if present {
			s[k] = want
		} else {
			delete(s, k)
		}
	}
	set("writes", true, d.Writes)
	set("destructive", true, d.Destructive)
	set("ops", d.Ops, len(d.Ops) > 0)
	if !changed {
		return nil, false
	}
	raw, err := json.Marshal(s)
	return raw, err == nil
}

// summarizeToolData adds a summary to a tool message's data that lacks
// one: its call's, else one of the arguments it was proposed with.
func summarizeToolData(m storage.ThreadMessage, byCall map[string]json.RawMessage, summary summaryFunc) (json.RawMessage, bool) {
	data := map[string]json.RawMessage{}
	if len(m.Data) > 0 {
		if err := json.Unmarshal(m.Data, &data); err != nil || data == nil {
			return nil, false
		}
	}
	if stored, has := data["summary"]; has {
		d, ok := declared(m.ToolName, stored)
		if !ok {
			return nil, false
		}
		data["summary"] = d
		raw, err := json.Marshal(data)
		return raw, err == nil
	}
	s, ok := byCall[m.ToolCallID]
	if !ok {
		args := data["proposed_arguments"]
		if len(args) == 0 {
			args = data["arguments"]
		}
		if s, ok = summary(m.ToolName, args); !ok {
			return nil, false
		}
	}
	data["summary"] = s
	raw, err := json.Marshal(data)
	return raw, err == nil
}
