package agent

import (
	"encoding/json"
	"slices"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// Limits of the history sent to the model. The thread keeps everything;
// these shape only what one model call sees.
const (
	// FullCitations is how many open_citation results stay in full; older
	// ones are sent as a stub that says how to reopen them.
	FullCitations = 3
	// DefaultContextWindow is assumed when the provider cannot tell a
	// model's context length.
	DefaultContextWindow = provider.DefaultMaxNumCtx
	// answerReserve is the share of the window (1/answerReserve) left for
	// the model's answer, at most maxAnswerReserve tokens.
	answerReserve    = 4
	maxAnswerReserve = 4096
)

// InterruptedText is the result given to the model for a call that never
// ran: its turn paused and the user moved on, or the process stopped.
const InterruptedText = "This call did not run: the turn was interrupted before it was approved or finished."

// historyOf turns stored thread messages into provider messages.
func historyOf(stored []storage.ThreadMessage) []provider.Message {
	out := make([]provider.Message, 0, len(stored))
	for _, m := range stored {
		switch m.Role {
		case storage.RoleSystem:
			continue // the system message is rebuilt every round
		case storage.RoleAssistant:
			out = append(out, assistantMessage(m))
		default:
			out = append(out, provider.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName})
		}
	}
	return out
}

func assistantMessage(m storage.ThreadMessage) provider.Message {
	pm := provider.Message{Role: storage.RoleAssistant, Content: m.Content, Thinking: m.Thinking}
	if len(m.ToolCalls) > 0 {
		var calls []ToolCall
		if err := json.Unmarshal(m.ToolCalls, &calls); err == nil {
			for _, c := range calls {
				pm.ToolCalls = append(pm.ToolCalls, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		}
	}
	return pm
}

// historyOfClient turns the history a stateless client carries into
// provider messages; roles other than user, assistant and tool are
// dropped (the system message is the agent's).
func historyOfClient(msgs []Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case storage.RoleUser:
			out = append(out, provider.Message{Role: m.Role, Content: m.Content})
		case storage.RoleAssistant:
			pm := provider.Message{Role: m.Role, Content: m.Content}
			for _, c := range m.ToolCalls {
				pm.ToolCalls = append(pm.ToolCalls, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
			out = append(out, pm)
		case storage.RoleTool:
			out = append(out, provider.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.Name})
		}
	}
	return out
}

// pairToolResults makes a history valid for every provider: each call of
// an assistant message is answered by one tool message right after it
// (a call without one gets InterruptedText), and tool messages that answer
// no call are dropped. The stored thread is not changed.
func pairToolResults(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == storage.RoleTool {
			continue // an orphan: its call was handled with the assistant message
		}
		out = append(out, m)
		if m.Role != storage.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		results := map[string]provider.Message{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == storage.RoleTool; j++ {
			if _, dup := results[msgs[j].ToolCallID]; !dup {
				results[msgs[j].ToolCallID] = msgs[j]
			}
		}
		for _, c := range m.ToolCalls {
			r, ok := results[c.ID]
			if !ok {
				r = provider.Message{Role: storage.RoleTool, Content: string(mustJSON(map[string]string{"error": InterruptedText})), ToolCallID: c.ID, ToolName: c.Name}
			}
			out = append(out, r)
		}
		i = j - 1
	}
	return out
}

// trimCitations keeps the last FullCitations successful open_citation
// results in full and replaces the text of older ones with a note, so
// reading many passages does not crowd the window.
func trimCitations(msgs []provider.Message) []provider.Message {
	kept := 0
	var out []provider.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != storage.RoleTool || m.ToolName != "open_citation" {
			continue
		}
		var c map[string]any
		if json.Unmarshal([]byte(m.Content), &c) != nil || c["text"] == nil {
			continue // an error result, already short
		}
		if kept < FullCitations {
			kept++
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		delete(c, "text")
		c["note"] = "text dropped from this history to save space; call open_citation again to reread it"
		out[i].Content = string(mustJSON(c))
	}
	if out == nil {
		return msgs
	}
	return out
}

// fitHistory drops the oldest exchanges (a user message and everything
// after it up to the next user message) until the request's estimated size
// leaves room for the answer in window. The last exchange, the current
// question and this turn's rounds, is always sent: if it alone is too big,
// the provider reports the overflow.
func fitHistory(system provider.Message, tools []provider.Tool, history []provider.Message, window int) []provider.Message {
	if window <= 0 {
		window = DefaultContextWindow
	}
	budget := window - min(window/answerReserve, maxAnswerReserve)
	size := provider.EstimateTokens(provider.Request{Messages: append([]provider.Message{system}, history...), Tools: tools})
	for size > budget {
		next := -1
		for i := 1; i < len(history); i++ {
			if history[i].Role == storage.RoleUser {
				next = i
				break
			}
		}
		if next < 0 {
			break
		}
		size -= provider.EstimateTokens(provider.Request{Messages: history[:next]})
		history = history[next:]
	}
	return history
}

// modelHistory is the history one model call sees: results paired with
// their calls, old citations trimmed, and the whole fitted to the window.
func modelHistory(system provider.Message, tools []provider.Tool, history []provider.Message, window int) []provider.Message {
	return fitHistory(system, tools, trimCitations(pairToolResults(history)), window)
}
