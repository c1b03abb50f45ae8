package modeltest

import (
	"encoding/json"
	"strings"
)

// The server counts a prompt's tokens as a model's template and tokenizer
// would, with one deterministic rule, so that tests see counts of the size
// a real server reports:
//
//   - each message costs messageOverhead tokens for its role markers, plus
//     one token per bytesPerToken bytes (rounded up) of its content, its
//     thinking (Ollama's thinking, OpenAI's reasoning_content) and its tool
//     calls as sent (their JSON), plus ImageTokens per image (Ollama's
//     images, OpenAI's image_url parts; the text of content parts counts
//     as text);
//   - the tool definitions cost one token per bytesPerToken bytes of their
//     JSON as sent.
//
// Three bytes a token is what real tokenizers give for the mix of prose,
// numbers and JSON that Docent sends: more tokens than Docent's own
// estimate of four characters a token, as real servers count.
//
// On the Ollama wire the prompt then runs in a window, and a prompt that
// does not fit is cut the way Ollama 0.17 cuts it, silently (see
// ollamaPrompt), and prompt_eval_count reports what was kept.
const (
	bytesPerToken   = 3
	messageOverhead = 4
)

// OllamaDefaultNumCtx is the window Ollama runs a model with when the
// request sets no options.num_ctx (its default below 24 GiB of VRAM).
const OllamaDefaultNumCtx = 4096

// Truncations of a prompt that did not fit its window: Request.Truncated.
const (
	// TruncatedMessages: earlier messages were left out (the system
	// messages and the last one are always kept).
	TruncatedMessages = "messages"
	// TruncatedStart: the runner kept the first few tokens (num_keep, 4)
	// and the last ones, exactly the window in all.
	TruncatedStart = "start"
)

// Tokens is the server's count of text: one token per three bytes,
// rounded up.
func Tokens(s string) int { return (len(s) + bytesPerToken - 1) / bytesPerToken }

// wireMessage is the part of a chat message of either wire that is
// counted.
type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Images           []string        `json:"images"`
	Thinking         string          `json:"thinking"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
}

// messageTokens counts one message as sent: its overhead, its content (the
// text of a string, the JSON of content parts), thinking and tool calls.
func messageTokens(raw json.RawMessage) (role string, n int) {
	var m wireMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", messageOverhead + Tokens(string(raw))
	}
	content := string(m.Content)
	images := len(m.Images)
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		content = text
	} else if strings.TrimSpace(content) == "null" {
		content = ""
	} else if parts, isParts, err := contentParts(m.Content); isParts && err == nil {
		var n int
		content, n = partsText(parts)
		images += n
	}
	n = messageOverhead + Tokens(content) + Tokens(m.Thinking) + Tokens(m.ReasoningContent) + images*ImageTokens
	if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		n += Tokens(string(m.ToolCalls))
	}
	return m.Role, n
}

// countPrompt fills req's token counts: PromptTokens for every request, and
// on the Ollama wire the window, what Ollama would evaluate of the prompt
// and how it cut it.
func (s *Server) countPrompt(req *Request, b chatBody) {
	roles := make([]string, len(b.Messages))
	counts := make([]int, len(b.Messages))
	total := 0
	for i, m := range b.Messages {
		roles[i], counts[i] = messageTokens(m)
		total += counts[i]
	}
	tools := 0
	for _, t := range b.Tools {
		tools += Tokens(string(t))
	}
	req.PromptTokens = total + tools
	if req.Wire != "ollama" {
		return
	}
	req.Window = OllamaDefaultNumCtx
	var opts struct {
		NumCtx int `json:"num_ctx"`
	}
	if json.Unmarshal(b.Options, &opts) == nil && opts.NumCtx > 0 {
		req.Window = opts.NumCtx
	}
	if m, ok := s.model(b.Model); ok && m.ContextLength > 0 {
		// Ollama runs a model with at most the context it was trained for.
		req.Window = min(req.Window, m.ContextLength)
	}
	req.PromptEval, req.Truncated = ollamaPrompt(roles, counts, tools, req.Window)
}

// ollamaPrompt is what Ollama evaluates of a prompt of messages counting
// counts tokens (roles say which are system messages) and tools tokens of
// tool definitions, in a window of num tokens. As Ollama 0.17 does
// (server/prompt.go, runner/ollamarunner/runner.go): while the prompt is
// over the window, whole messages are dropped from the start, keeping the
// system messages and always the last message; if it is still over, the
// runner keeps the first num_keep (4) tokens and the last ones, exactly
// num in all. It returns the tokens evaluated, Ollama's
// prompt_eval_count, and how the prompt was cut ("" when it fit).
func ollamaPrompt(roles []string, counts []int, tools, num int) (eval int, truncated string) {
	size := func(from int) int {
		n := tools
		for i, c := range counts {
			if i >= from || roles[i] == "system" {
				n += c
			}
		}
		return n
	}
	from := 0
	for from < len(counts)-1 && size(from) > num {
		from++
	}
	eval = size(from)
	if from > 0 {
		truncated = TruncatedMessages
	}
	if eval > num {
		eval, truncated = num, TruncatedStart
	}
	return eval, truncated
}
