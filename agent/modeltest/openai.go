package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// openaiChunk is a chat.completion.chunk.
type openaiChunk struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	Created           int64               `json:"created"`
	Model             string              `json:"model"`
	SystemFingerprint string              `json:"system_fingerprint"`
	Choices           []openaiChunkChoice `json:"choices"`
	// Usage is null on every chunk but the last when include_usage is set,
	// and absent otherwise, as OpenAI sends it.
	Usage any `json:"usage,omitempty"`
}

type openaiChunkChoice struct {
	Index        int         `json:"index"`
	Delta        openaiDelta `json:"delta"`
	Logprobs     any         `json:"logprobs"`
	FinishReason *string     `json:"finish_reason"`
}

type openaiDelta struct {
	Role             string                `json:"role,omitempty"`
	Content          *string               `json:"content,omitempty"`
	ReasoningContent string                `json:"reasoning_content,omitempty"`
	ToolCalls        []openaiToolCallDelta `json:"tool_calls,omitempty"`
}

type openaiToolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openaiError writes {"error":{"message","type","param","code"}} with status.
func openaiError(w http.ResponseWriter, status int, msg string) {
	typ, code := "api_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		typ, code = "authentication_error", "invalid_api_key"
	case status == http.StatusNotFound:
		typ, code = "invalid_request_error", "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "rate_limit_error", "rate_limit_exceeded"
	case status < 500:
		typ = "invalid_request_error"
	case status >= 500:
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	req, body, err := s.readChat("openai", r)
	if err != nil {
		openaiError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if body.Model == "" {
		openaiError(w, http.StatusBadRequest, "you must provide a model parameter")
		return
	}
	m, ok := s.model(body.Model)
	if !ok {
		openaiError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", body.Model))
		return
	}
	if m.RefuseMaxTokens && body.MaxTokens != nil {
		// OpenAI's answer, word for word, to max_tokens for a reasoning model.
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			"type":    "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter",
		}})
		return
	}
	if len(body.Tools) > 0 && !m.has("tools") {
		openaiError(w, http.StatusBadRequest, registryName(body.Model)+" does not support tools")
		return
	}
	if body.imageErr != nil {
		openaiError(w, http.StatusBadRequest, body.imageErr.Error())
		return
	}
	if len(req.Images) > 0 && !m.has("vision") {
		openaiError(w, http.StatusBadRequest, body.Model+" is not a multimodal model: it takes no images")
		return
	}

	rep, ok := s.reply(w, r, req, openaiError)
	if !ok {
		return
	}
	if th, tx, cut := capOutput(req.MaxTokens, rep.ChunkRunes, rep.Thinking, rep.Text); cut {
		rep.Thinking, rep.Text, rep.ToolCalls, rep.DoneReason = th, tx, nil, "length"
	}

	id := fmt.Sprintf("chatcmpl-modeltest-%d", s.seq.Add(1))
	created := time.Now().Unix()
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if rep.DoneReason != "" {
		finish = rep.DoneReason
	}
	thinking := splitRunes(rep.Thinking, rep.ChunkRunes)
	text := splitRunes(rep.Text, rep.ChunkRunes)
	usage := openaiUsage{PromptTokens: promptTokens(req, rep), CompletionTokens: rep.CompletionTokens}
	if usage.CompletionTokens == 0 {
		usage.CompletionTokens = len(thinking) + len(text) + len(rep.ToolCalls)
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens

	if !req.Stream {
		type message struct {
			Role             string           `json:"role"`
			Content          *string          `json:"content"`
			ReasoningContent string           `json:"reasoning_content,omitempty"`
			Refusal          *string          `json:"refusal"`
			ToolCalls        []openaiToolCall `json:"tool_calls,omitempty"`
		}
		msg := message{Role: "assistant", ReasoningContent: rep.Thinking}
		if rep.Text != "" || len(rep.ToolCalls) == 0 {
			msg.Content = &rep.Text
		}
		for i, tc := range rep.ToolCalls {
			var c openaiToolCall
			c.ID, c.Type = callID(tc, i), "function"
			c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
			msg.ToolCalls = append(msg.ToolCalls, c)
		}
		b, err := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": body.Model,
			"system_fingerprint": "fp_modeltest",
			"choices": []any{map[string]any{
				"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish,
			}},
			"usage": usage,
		})
		if err != nil {
			panic(fmt.Sprintf("modeltest: marshal completion: %v", err))
		}
		w.Header().Set("Content-Type", "application/json")
		s.sendWhole(w, rep, b, []byte(`{"id":"`+id+`","object":"chat.completion","choices":[{"index":0,"message":{"content":"tru`))
		return
	}

	var includeUsage struct {
		IncludeUsage bool `json:"include_usage"`
	}
	_ = json.Unmarshal(body.StreamOptions, &includeUsage)
	chunk := func(d openaiDelta, fin *string) openaiChunk {
		c := openaiChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: body.Model,
			SystemFingerprint: "fp_modeltest",
			Choices:           []openaiChunkChoice{{Delta: d, FinishReason: fin}},
		}
		if includeUsage.IncludeUsage {
			c.Usage = json.RawMessage("null")
		}
		return c
	}
	var chunks []openaiChunk
	empty := ""
	chunks = append(chunks, chunk(openaiDelta{Role: "assistant", Content: &empty}, nil))
	for _, p := range thinking {
		chunks = append(chunks, chunk(openaiDelta{ReasoningContent: p}, nil))
	}
	for _, p := range text {
		chunks = append(chunks, chunk(openaiDelta{Content: &p}, nil))
	}
	for i, tc := range rep.ToolCalls {
		var first openaiToolCallDelta
		first.Index, first.ID, first.Type = i, callID(tc, i), "function"
		first.Function.Name = tc.Name
		chunks = append(chunks, chunk(openaiDelta{ToolCalls: []openaiToolCallDelta{first}}, nil))
		for _, frag := range splitOdd(tc.Arguments) {
			var d openaiToolCallDelta
			d.Index = i
			d.Function.Arguments = frag
			chunks = append(chunks, chunk(openaiDelta{ToolCalls: []openaiToolCallDelta{d}}, nil))
		}
	}
	chunks = append(chunks, chunk(openaiDelta{}, &finish))
	if includeUsage.IncludeUsage {
		c := chunk(openaiDelta{}, nil)
		c.Choices, c.Usage = []openaiChunkChoice{}, usage
		chunks = append(chunks, c)
	}

	frames := make([][]byte, 0, len(chunks)+1)
	for _, c := range chunks {
		b, err := json.Marshal(c)
		if err != nil {
			panic(fmt.Sprintf("modeltest: marshal chunk: %v", err))
		}
		frames = append(frames, sse(b))
	}
	frames = append(frames, sse([]byte("[DONE]")))
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	s.send(w, r, rep, frames, sse([]byte(`{"id":"`+id+`","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru`)))
}

func sse(data []byte) []byte {
	out := make([]byte, 0, len(data)+8)
	out = append(out, "data: "...)
	out = append(out, data...)
	return append(out, "\n\n"...)
}

// callID is the tool call's id, or a generated one: OpenAI always sends ids.
func callID(tc ToolCall, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d", i)
}

func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	data := []model{}
	for _, m := range s.offered() {
		data = append(data, model{ID: m.Name, Object: "model", Created: modelTime.Unix(), OwnedBy: "library"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
