package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// The text protocol lets a model without native tool calling use the tools:
// they are described in the system message, the model answers with
// TOOL_CALL lines or a FINAL line, and results come back as user messages.
// The turn loop is the same: events, approvals and tools do not change.

// textProtocolIntro is appended to the instructions in text mode. It is
// fixed text, so the system message's prefix stays stable.
const textProtocolIntro = `

You cannot call tools natively here. To use a tool, reply with one line per call and nothing after them:
TOOL_CALL {"tool": "<tool name>", "input": {<the tool's arguments as a JSON object>}}
You may write a short sentence for the user before the TOOL_CALL lines. The results come back in the next message, each starting with TOOL_RESULT.
When you need no more tools, reply with one line:
FINAL {"answer": "<your answer for the user; markdown allowed>", "citations": [<the cite numbers of the results the answer uses, if any>]}

Tools (name, whether it changes data, what it does, its input as JSON Schema):`

// textToolsSection describes the tools named (every tool for nil) for the
// text protocol.
func textToolsSection(names []string) string {
	var b strings.Builder
	b.WriteString(textProtocolIntro)
	for _, t := range registry() {
		if names != nil && !slices.Contains(names, t.Name) {
			continue
		}
		access := "read-only"
		if t.Access == ReadWrite {
			access = "changes data, may need the user's approval"
		}
		var params bytes.Buffer
		if err := json.Compact(&params, t.Parameters); err != nil {
			params.Write(t.Parameters)
		}
		fmt.Fprintf(&b, "\n- %s (%s): %s Input: %s", t.Name, access, t.Description, params.String())
	}
	return b.String()
}

// textReply is a parsed text-protocol answer.
type textReply struct {
	// Text is what the user sees: the prose before the calls, or the
	// final answer.
	Text  string
	Calls []provider.ToolCall
	// Citations are the numbers a FINAL listed in "citations".
	Citations []int
}

// errNotProtocol marks an answer that follows neither TOOL_CALL nor FINAL.
var errNotProtocol = errors.New("the reply has no TOOL_CALL line and no FINAL line")

// parseTextReply reads a text-protocol answer. Code fences around the lines
// are ignored; the JSON after TOOL_CALL may run over several lines.
func parseTextReply(text string) (textReply, error) {
	var r textReply
	var prose []string
	rest := text
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "TOOL_CALL"):
			payload := strings.TrimSpace(strings.TrimPrefix(trimmed, "TOOL_CALL")) + "\n" + after
			var call struct {
				Tool  string          `json:"tool"`
				Input json.RawMessage `json:"input"`
			}
			dec := json.NewDecoder(strings.NewReader(payload))
			if err := dec.Decode(&call); err != nil {
				return textReply{}, fmt.Errorf("TOOL_CALL %d is not a JSON object {\"tool\": ..., \"input\": {...}}: %v", len(r.Calls)+1, err)
			}
			if strings.TrimSpace(call.Tool) == "" {
				return textReply{}, fmt.Errorf("TOOL_CALL %d names no \"tool\"", len(r.Calls)+1)
			}
			args := call.Input
			if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
				args = json.RawMessage(`{}`)
			}
			r.Calls = append(r.Calls, provider.ToolCall{Name: strings.TrimSpace(call.Tool), Arguments: args})
			rest = payload[dec.InputOffset():]
			continue
		case strings.HasPrefix(trimmed, "FINAL") && len(r.Calls) == 0:
			r.Text, r.Citations = finalAnswer(strings.TrimSpace(strings.TrimPrefix(trimmed, "FINAL")) + "\n" + after)
			return r, nil
		case strings.HasPrefix(trimmed, "```"):
			// a fence around the protocol lines
		case len(r.Calls) == 0:
			prose = append(prose, line)
		}
		rest = after
	}
	if len(r.Calls) == 0 {
		return textReply{}, errNotProtocol
	}
	r.Text = strings.TrimSpace(strings.Join(prose, "\n"))
	return r, nil
}

// finalAnswer reads what follows FINAL: {"answer": ..., "citations":
// [n, ...]} as asked (DocuChat's form), or a JSON string, or, leniently,
// the plain text. Citations that are not whole numbers are left out.
func finalAnswer(s string) (string, []int) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) == nil {
		var cites []int
		list, _ := obj["citations"].([]any)
		for _, v := range list {
			if f, ok := v.(float64); ok && f == float64(int(f)) && f > 0 {
				cites = append(cites, int(f))
			}
		}
		for _, k := range []string{"answer", "text", "final"} {
			if v, ok := obj[k].(string); ok {
				return strings.TrimSpace(v), cites
			}
		}
	}
	var str string
	if json.Unmarshal([]byte(s), &str) == nil {
		return strings.TrimSpace(str), nil
	}
	return s, nil
}

// textHistory rewrites a history for the text protocol: calls become
// TOOL_CALL lines in the assistant's text and results become user
// messages, which every chat template accepts.
func textHistory(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		switch {
		case m.Role == storage.RoleAssistant && len(m.ToolCalls) > 0:
			var b strings.Builder
			if s := strings.TrimSpace(m.Content); s != "" {
				b.WriteString(s)
				b.WriteString("\n")
			}
			for _, c := range m.ToolCalls {
				input := json.RawMessage(c.Arguments)
				if !json.Valid(input) {
					input = mustJSON(string(c.Arguments))
				}
				fmt.Fprintf(&b, "TOOL_CALL %s\n", mustJSON(map[string]any{"tool": c.Name, "input": input}))
			}
			out = append(out, provider.Message{Role: storage.RoleAssistant, Content: strings.TrimSpace(b.String()), Thinking: m.Thinking})
		case m.Role == storage.RoleTool:
			out = append(out, provider.Message{Role: storage.RoleUser, Content: fmt.Sprintf("TOOL_RESULT %s (%s): %s", m.ToolName, m.ToolCallID, m.Content)})
		default:
			out = append(out, m)
		}
	}
	return out
}

// Follow-up prompts of the text protocol when an answer cannot be read.
const (
	textRepromptFormat = "Your reply could not be read: %v. Reply again using only TOOL_CALL lines, or one FINAL line."
	textForceFinal     = "Stop using tools now. Reply with one FINAL line holding your answer for the user."
)
