// Package provider talks to the language models Docent runs: a local Ollama
// server and any OpenAI-compatible endpoint. Both sit behind one Provider
// interface that streams thinking and text deltas, assembles tool calls and
// usage, retries transient failures before anything was streamed, stops a
// call whose stream went idle, and turns every failure into an *Error whose
// message tells a person what to do.
package provider

import (
	"context"
	"encoding/json"
)

// Message is one chat message in the provider-neutral form the agent keeps.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Content is the visible text.
	Content string
	// Thinking is the assistant's reasoning, sent back to providers that
	// accept it (Ollama).
	Thinking string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is, on a tool message, the id of the call it answers.
	ToolCallID string
	// ToolName is, on a tool message, the name of the tool that ran.
	ToolName string
	// Images are pictures for a vision model to see with the message
	// (PNG or JPEG bytes; a user message): Ollama's message "images"
	// (base64), and on the OpenAI wire content parts of type image_url
	// with a data: URL, after the text.
	Images [][]byte
}

// ToolCall is one tool call made by the model.
type ToolCall struct {
	// ID is the provider's call id, or "call_<n>" when the server gave none.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the complete JSON object text of the arguments. A model
	// can produce text that is not valid JSON; callers must check it
	// (json.Valid) before use and tell the model when it is not.
	Arguments json.RawMessage
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object.
	Parameters json.RawMessage
}

// Request is one model call.
type Request struct {
	// Model is the model name without the provider prefix, e.g. "qwen3:8b".
	Model    string
	Messages []Message
	Tools    []Tool
	// Format is a JSON Schema for structured output: Ollama's "format",
	// OpenAI's response_format {type: json_schema, json_schema: {name,
	// schema, strict: true}}. Nil means free text.
	Format json.RawMessage
	// Think turns reasoning on or off on Ollama; nil is the provider's
	// default. The OpenAI provider does not send it (see openai.go).
	Think *bool
	// NumCtx is Ollama's num_ctx; 0 lets the provider choose the model's
	// context length from /api/show, capped by Config.MaxNumCtx.
	NumCtx int
	// MaxTokens caps the answer's length in tokens (thinking included on
	// Ollama): Ollama's num_predict, OpenAI's max_tokens. 0 leaves it to
	// the server. An answer cut there has Response.Truncated set.
	MaxTokens int
}

// Delta is a piece of streamed output; one of the fields is set.
type Delta struct {
	Thinking string
	Text     string
}

// Response is the complete result of one model call.
type Response struct {
	// Text is the visible answer, without any <think> section.
	Text string
	// Thinking is the reasoning: the provider's native field plus any
	// <think>…</think> section found in the text.
	Thinking string
	// ToolCalls are assembled from the streamed fragments.
	ToolCalls []ToolCall
	Usage     Usage
	// DoneReason is the provider's reason for stopping ("stop", "length",
	// "tool_calls", ...).
	DoneReason string
	// Truncated is true when the answer was cut at the output limit
	// (DoneReason "length" on Ollama and every OpenAI-compatible server,
	// "model_length" on Mistral): Text is then incomplete, and JSON in it
	// most likely unfinished.
	Truncated bool
	// NumCtx is the context window the call was run with (Ollama's
	// num_ctx); 0 when the provider does not say (OpenAI).
	NumCtx int
	// PromptTruncated is set when the server cut the prompt to fit NumCtx,
	// so that the model answered having seen only part of it (Ollama, read
	// from its own token count: truncation.go); nil when it saw it all or
	// the provider cannot tell.
	PromptTruncated *PromptTruncation
}

// Usage is the token count of one call as the provider reports it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens are the prompt tokens the server read from its cache
	// (OpenAI's prompt_tokens_details.cached_tokens); 0 where it says
	// nothing. Kept for the usage ledger, not sent on.
	CachedTokens int `json:"-"`
}

// ModelInfo describes a model a provider offers.
type ModelInfo struct {
	// ID is the full model id with its provider prefix, e.g. "ollama/qwen3:8b".
	ID       string `json:"id"`
	Provider string `json:"provider"`
	// ContextLength is the model's trained context length, when known.
	ContextLength int `json:"context_length,omitempty"`
	// Capabilities are what the model can do ("completion", "tools",
	// "thinking", "vision", ...), when known.
	Capabilities []string `json:"capabilities,omitempty"`
}

// Has reports whether the model has capability c.
func (m ModelInfo) Has(c string) bool {
	for _, x := range m.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// Provider is one model backend.
type Provider interface {
	// Name is "ollama" or "openai".
	Name() string
	// Chat streams one model call: onDelta gets thinking and text deltas as
	// they arrive (return an error to stop; Chat then returns that error);
	// the Response holds the complete text, thinking, tool calls assembled
	// from fragments, and usage.
	Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error)
	// Models lists the models the provider offers.
	Models(ctx context.Context) ([]ModelInfo, error)
	// Show tells what one model can do (context length, capabilities) when
	// the provider knows; Ollama via /api/show.
	Show(ctx context.Context, model string) (ModelInfo, error)
}
