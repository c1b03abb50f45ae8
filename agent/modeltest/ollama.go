package modeltest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ollamaMessage is api.Message on the wire.
type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
}

// ollamaToolCall is api.ToolCall on the wire; arguments are a JSON object.
type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int    `json:"index"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"` // a placeholder, replaced by the raw text
	} `json:"function"`
}

// ollamaChunk is api.ChatResponse on the wire, metrics inlined.
type ollamaChunk struct {
	Model              string        `json:"model"`
	CreatedAt          time.Time     `json:"created_at"`
	Message            ollamaMessage `json:"message"`
	Done               bool          `json:"done"`
	DoneReason         string        `json:"done_reason,omitempty"`
	TotalDuration      int64         `json:"total_duration,omitempty"`
	LoadDuration       int64         `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64         `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       int64         `json:"eval_duration,omitempty"`
}

// ollamaError writes an error the way Ollama's handlers do: {"error": "..."}.
func ollamaError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(b)
}

// registryName is the fully qualified name Ollama puts in capability errors.
func registryName(model string) string {
	if !strings.Contains(model, ":") {
		model += ":latest"
	}
	if strings.Count(model, "/") == 0 {
		model = "library/" + model
	}
	return "registry.ollama.ai/" + model
}

// thinkSetting reads Ollama's "think": -1 unset, 0 false, 1 true or a level.
func thinkSetting(raw json.RawMessage) int {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null":
		return -1
	case "false", `""`:
		return 0
	}
	return 1
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	req, body, err := s.readChat("ollama", r)
	if err != nil {
		ollamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if body.Model == "" {
		ollamaError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(body.Model)
	if !ok {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", body.Model))
		return
	}
	think := thinkSetting(body.Think)
	if think == 1 && !m.has("thinking") {
		ollamaError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", body.Model))
		return
	}
	if len(body.Tools) > 0 && !m.has("tools") {
		ollamaError(w, http.StatusBadRequest, registryName(body.Model)+" does not support tools")
		return
	}
	if body.imageErr != nil {
		ollamaError(w, http.StatusBadRequest, body.imageErr.Error())
		return
	}
	if len(req.Images) > 0 && !m.has("vision") {
		ollamaError(w, http.StatusInternalServerError, errNoVision)
		return
	}

	rep, ok := s.reply(w, r, req, ollamaError)
	if !ok {
		return
	}

	// Ollama defaults think to true for thinking models; false hides it.
	thinking := rep.Thinking
	if !m.has("thinking") || think == 0 {
		thinking = ""
	}
	if th, tx, cut := capOutput(req.MaxTokens, rep.ChunkRunes, thinking, rep.Text); cut {
		thinking, rep.Text, rep.ToolCalls, rep.DoneReason = th, tx, nil, "length"
	}
	chunk := func() ollamaChunk {
		return ollamaChunk{Model: body.Model, CreatedAt: time.Now().UTC(), Message: ollamaMessage{Role: "assistant"}}
	}
	final := func(c ollamaChunk, deltas int) ollamaChunk {
		c.Done, c.DoneReason = true, cmp.Or(rep.DoneReason, "stop")
		c.PromptEvalCount = promptTokens(req, rep)
		c.EvalCount = rep.CompletionTokens
		if c.EvalCount == 0 {
			c.EvalCount = deltas
		}
		c.LoadDuration = int64(12 * time.Millisecond)
		c.PromptEvalDuration = int64(c.PromptEvalCount) * int64(200*time.Microsecond)
		c.EvalDuration = int64(c.EvalCount) * int64(20*time.Millisecond)
		c.TotalDuration = c.LoadDuration + c.PromptEvalDuration + c.EvalDuration
		return c
	}
	const malformed = `{"model":"modeltest","message":{"role":"assistant","content":"tru` + "\n"

	if !req.Stream {
		c := chunk()
		c.Message.Thinking = thinking
		c.Message.Content = rep.Text
		c.Message.ToolCalls = ollamaToolCalls(rep.ToolCalls)
		deltas := len(splitRunes(thinking, rep.ChunkRunes)) + len(splitRunes(rep.Text, rep.ChunkRunes)) + len(rep.ToolCalls)
		b := ollamaFrame(final(c, deltas), rep.ToolCalls)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		s.sendWhole(w, rep, bytes.TrimSuffix(b, []byte("\n")), []byte(malformed))
		return
	}

	var frames [][]byte
	for _, p := range splitRunes(thinking, rep.ChunkRunes) {
		c := chunk()
		c.Message.Thinking = p
		frames = append(frames, ollamaFrame(c, nil))
	}
	for _, p := range splitRunes(rep.Text, rep.ChunkRunes) {
		c := chunk()
		c.Message.Content = p
		frames = append(frames, ollamaFrame(c, nil))
	}
	if len(rep.ToolCalls) > 0 {
		c := chunk()
		c.Message.ToolCalls = ollamaToolCalls(rep.ToolCalls)
		frames = append(frames, ollamaFrame(c, rep.ToolCalls))
	}
	frames = append(frames, ollamaFrame(final(chunk(), len(frames)), nil))
	w.Header().Set("Content-Type", "application/x-ndjson")
	s.send(w, r, rep, frames, []byte(malformed))
}

// ollamaToolCalls builds the wire tool calls with placeholder arguments.
func ollamaToolCalls(calls []ToolCall) []ollamaToolCall {
	var out []ollamaToolCall
	for i, tc := range calls {
		var c ollamaToolCall
		c.ID = tc.ID
		c.Function.Index = i
		c.Function.Name = tc.Name
		c.Function.Arguments = argsPlaceholder(i)
		out = append(out, c)
	}
	return out
}

func argsPlaceholder(i int) string { return fmt.Sprintf("\x00modeltest-args-%d\x00", i) }

// ollamaFrame marshals one NDJSON line, putting each tool call's raw
// argument text where its placeholder string is.
func ollamaFrame(c ollamaChunk, calls []ToolCall) []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("modeltest: marshal ollama chunk: %v", err))
	}
	for i, tc := range calls {
		ph, _ := json.Marshal(argsPlaceholder(i))
		args := tc.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		b = bytes.Replace(b, ph, []byte(args), 1)
	}
	return append(b, '\n')
}

func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		Name       string         `json:"name"`
		Model      string         `json:"model"`
		ModifiedAt time.Time      `json:"modified_at"`
		Size       int64          `json:"size"`
		Digest     string         `json:"digest"`
		Details    map[string]any `json:"details"`
	}
	list := struct {
		Models []entry `json:"models"`
	}{Models: []entry{}}
	for _, m := range s.offered() {
		list.Models = append(list.Models, entry{
			Name: m.Name, Model: m.Name, ModifiedAt: modelTime, Size: 5_225_376_047,
			Digest: digest(m.Name), Details: details(m),
		})
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := cmp.Or(req.Model, req.Name)
	if name == "" {
		ollamaError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(name)
	if !ok {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	fam := family(m)
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "# Modelfile generated by modeltest\nFROM " + m.Name + "\n",
		"parameters": "temperature 0.6\ntop_k 20\ntop_p 0.95",
		"template":   "{{ .Prompt }}",
		"details":    details(m),
		"model_info": map[string]any{
			"general.architecture":        fam,
			"general.parameter_count":     8_190_735_360,
			fam + ".context_length":       m.ContextLength,
			fam + ".embedding_length":     4096,
			fam + ".attention.head_count": 32,
		},
		"capabilities": m.Capabilities,
		"modified_at":  modelTime,
	})
}

func (s *Server) ollamaVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": "0.17.4"})
}

// modelTime is when every scripted model was "pulled".
var modelTime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func family(m Model) string {
	if m.Family != "" {
		return m.Family
	}
	name, _, _ := strings.Cut(m.Name, ":")
	return name
}

func details(m Model) map[string]any {
	_, tag, _ := strings.Cut(m.Name, ":")
	size := strings.ToUpper(tag)
	if !strings.HasSuffix(size, "B") {
		size = "8B"
	}
	return map[string]any{
		"parent_model":       "",
		"format":             "gguf",
		"family":             family(m),
		"families":           []string{family(m)},
		"parameter_size":     size,
		"quantization_level": "Q4_K_M",
	}
}

func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("modeltest: marshal response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
