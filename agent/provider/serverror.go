package provider

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/docent/docent/agent/textfmt"
)

// serverError is what a server said about a failed request, read from its
// error body whatever the server family: the message meant for a person and
// the machine-readable code or type. One reader serves both wires, for error
// statuses and for errors that arrive inside a stream.
type serverError struct {
	// Message is the server's own explanation; "" when the body has none.
	Message string
	// Code is the body's code ("context_length_exceeded", "429", ...).
	Code string
	// Type is the body's type ("invalid_request_error", "server_error",
	// "exceed_context_size_error", ...).
	Type string
	// Status is an HTTP status found in the body (llama.cpp's, vLLM's and
	// OpenRouter's numeric code; Ollama's mid-stream "status"); 0 if none.
	Status int
	// Header holds rate-limit headers a gateway passed on in the body
	// (OpenRouter's error.metadata.headers).
	Header http.Header
}

// maxErrorBody is how much of an error body is kept.
const maxErrorBody = 64 << 10

// parseServerError reads the error bodies servers send:
//
//	{"error": "text"}                                   Ollama, LM Studio
//	{"error": "text", "status": 500}                    Ollama, inside a stream
//	{"error": {"message", "type", "param", "code"}}     OpenAI, Groq, DeepSeek, llama.cpp, vLLM ≥ 0.10, Ollama's /v1
//	{"error": {"code": 502, "message", "metadata"}}     OpenRouter
//	{"object": "error", "message", "type", "code"}      vLLM before 0.10, Mistral
//	{"object": "error", "message": {"detail": [...]}}   Mistral's validation errors
//	{"detail": "text"} or {"detail": [{"loc", "msg"}]}  FastAPI servers (validation)
//
// and, as a last resort, a plain-text body (never HTML).
func parseServerError(body []byte) serverError {
	body = bytes.TrimSpace(body)
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
		Detail  json.RawMessage `json:"detail"`
	}
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &top) != nil {
		return serverError{Message: plainText(body)}
	}
	var se serverError
	var inner struct {
		Message  json.RawMessage `json:"message"`
		Type     json.RawMessage `json:"type"`
		Code     json.RawMessage `json:"code"`
		Metadata struct {
			ProviderName string            `json:"provider_name"`
			Raw          json.RawMessage   `json:"raw"`
			Headers      map[string]string `json:"headers"`
		} `json:"metadata"`
	}
	switch {
	case jsonString(top.Error) != "":
		se.Message = jsonString(top.Error)
		se.Type, se.Code = jsonString(top.Type), jsonScalar(top.Code)
	case len(top.Error) > 0 && top.Error[0] == '{' && json.Unmarshal(top.Error, &inner) == nil:
		se.Message = jsonString(inner.Message)
		se.Type, se.Code = jsonString(inner.Type), jsonScalar(inner.Code)
		if m := inner.Metadata; m.ProviderName != "" || len(m.Raw) > 0 {
			se.Message = withUpstream(se.Message, m.ProviderName, m.Raw)
		}
		for k, v := range inner.Metadata.Headers {
			if se.Header == nil {
				se.Header = http.Header{}
			}
			se.Header.Set(k, v)
		}
	case jsonString(top.Message) != "":
		se.Message = jsonString(top.Message)
		se.Type, se.Code = jsonString(top.Type), jsonScalar(top.Code)
	case len(top.Message) > 0 && top.Message[0] == '{':
		// Mistral's validation errors: "message": {"detail": [...]}.
		var m struct {
			Detail json.RawMessage `json:"detail"`
		}
		if json.Unmarshal(top.Message, &m) == nil {
			se.Message = detailText(m.Detail)
		}
		se.Type, se.Code = jsonString(top.Type), jsonScalar(top.Code)
	case len(top.Detail) > 0:
		se.Message = detailText(top.Detail)
	}
	se.Message = strings.TrimSpace(se.Message)
	if n, err := strconv.Atoi(jsonScalar(top.Status)); err == nil && n >= 100 && n < 600 {
		se.Status = n
	} else if n, err := strconv.Atoi(se.Code); err == nil && n >= 100 && n < 600 {
		se.Status = n
	}
	return se
}

// withUpstream adds what a gateway's upstream provider said (OpenRouter's
// metadata) to a message as general as "Provider returned error".
func withUpstream(msg, provider string, raw json.RawMessage) string {
	up := jsonString(raw)
	if up == "" && len(raw) > 0 && raw[0] == '{' {
		up = parseServerError(raw).Message
	} else if up != "" {
		if m := parseServerError([]byte(up)).Message; m != "" {
			up = m
		}
	}
	up = textfmt.Shorten(strings.TrimSpace(up), 300)
	switch {
	case up == "" || strings.Contains(msg, up):
		return msg
	case provider != "":
		return msg + " (" + provider + ": " + up + ")"
	}
	return msg + " (" + up + ")"
}

// detailText reads FastAPI's detail: a string, or validation errors.
func detailText(raw json.RawMessage) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	var items []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		var loc []string
		for _, l := range it.Loc {
			loc = append(loc, strings.Trim(strings.TrimSpace(jsonText(l)), `"`))
		}
		if len(loc) > 0 {
			parts = append(parts, strings.Join(loc, ".")+": "+it.Msg)
		} else {
			parts = append(parts, it.Msg)
		}
	}
	return strings.Join(parts, "; ")
}

// plainText is a non-JSON body as a message: its text collapsed to one
// line and clipped, or nothing for an HTML page.
func plainText(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" || s[0] == '<' {
		return ""
	}
	return textfmt.Shorten(strings.Join(strings.Fields(s), " "), 300)
}

// jsonString is raw as a string when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonScalar is a JSON string's value or a number's text; "" otherwise.
func jsonScalar(raw json.RawMessage) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	var n json.Number
	if len(raw) > 0 && json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// said is a status and the server's message as a person reads them:
// "400 Bad Request: the message", or the status alone.
func said(status int, msg string) string {
	s := strconv.Itoa(status)
	if t := http.StatusText(status); t != "" {
		s += " " + t
	}
	if msg != "" {
		s += ": " + msg
	}
	return s
}

// refusesTools reports whether a server's message means that it (or the
// model) takes no tools, so that the agent switches to its text protocol
// instead of failing the turn:
//
//   - Ollama, native and /v1: "registry.ollama.ai/library/gemma3:1b does not support tools"
//   - vLLM without tool calling set up: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`
//   - llama.cpp's server without --jinja (a 500): "tools param requires --jinja flag"
//   - OpenRouter (a 404): "No endpoints found that support tool use"
func refusesTools(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{
		"does not support tools",
		"--enable-auto-tool-choice",
		"tools param requires --jinja",
		"support tool use",
	} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return strings.Contains(m, "tool") && (strings.Contains(m, "not supported") || strings.Contains(m, "does not support") || strings.Contains(m, "unsupported"))
}

// overflows reports whether a server's error says the prompt does not fit
// the model's context: OpenAI's and Groq's context_length_exceeded,
// vLLM's and DeepSeek's "maximum context length", llama.cpp's
// exceed_context_size_error, Mistral's "too large for model with N maximum
// context length", LM Studio's "context ... overflows".
func overflows(se serverError) bool {
	if se.Code == "context_length_exceeded" || se.Type == "exceed_context_size_error" {
		return true
	}
	m := strings.ToLower(se.Message)
	return strings.Contains(m, "context length") || strings.Contains(m, "context size") ||
		strings.Contains(m, "context window") || strings.Contains(m, "context the overflows") ||
		strings.Contains(m, "context overflow")
}
