package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// The fixtures below are streams and error bodies as each server family
// sends them, written from its public documentation and documented
// behaviour, and served verbatim (modeltest.Raw) to the real client
// libraries. Each test asserts what a person sees: text, thinking, tool
// calls with their ids and arguments, or the message of the error.

// sse is an OpenAI-compatible event stream of the given data payloads,
// ending with [DONE].
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// chunk is a chat.completion.chunk with one choice holding delta, and
// finish as its finish_reason ("null" for none).
func chunk(delta, finish string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1735689600,"model":"qwen3:8b","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
}

func openaiOnly(t *testing.T, s *modeltest.Server) *OpenAI {
	t.Helper()
	return providers(t, testConfig(s))[1].(*OpenAI)
}

func ollamaOnly(t *testing.T, s *modeltest.Server) *Ollama {
	t.Helper()
	return providers(t, testConfig(s))[0].(*Ollama)
}

func withTool(req Request) Request {
	req.Tools = []Tool{{Name: "search_documents", Description: "Full-text search",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)}}
	return req
}

// wantCalls compares tool calls by id, name and argument text.
func wantCalls(t *testing.T, got []ToolCall, want ...ToolCall) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].ID == want[i].ID && got[i].Name == want[i].Name && string(got[i].Arguments) == string(want[i].Arguments)
	}
	if !ok {
		var b strings.Builder
		for _, c := range got {
			b.WriteString("\n  " + c.ID + " " + c.Name + " " + string(c.Arguments))
		}
		t.Errorf("tool calls:%s\nwant %d: %+v", b.String(), len(want), want)
	}
}

func TestStreamedToolCallsAssembleWithoutPhantoms(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []ToolCall
	}{
		{
			// DeepSeek, llama.cpp's server, OpenAI: the first fragment has
			// the id and the name, the arguments follow in pieces.
			name: "fragments at index 0",
			body: sse(
				chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_0_4b1d","type":"function","function":{"name":"search_documents","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"que"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ry\": \"ACME\"}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`)),
			want: []ToolCall{{ID: "call_0_4b1d", Name: "search_documents", Arguments: json.RawMessage(`{"query": "ACME"}`)}},
		},
		{
			// A server whose tool-call indices start at 1 (it counts the
			// text before them) and skip one between calls.
			name: "indices from 1, with a gap",
			body: sse(
				chunk(`{"role":"assistant","content":"Let me look."}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"id":"call_a","type":"function","function":{"name":"search_documents","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"query\":\"ACME\"}"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":3,"id":"call_b","type":"function","function":{"name":"read_page","arguments":"{\"page\":"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":3,"function":{"arguments":"2}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`)),
			want: []ToolCall{
				{ID: "call_a", Name: "search_documents", Arguments: json.RawMessage(`{"query":"ACME"}`)},
				{ID: "call_b", Name: "read_page", Arguments: json.RawMessage(`{"page":2}`)},
			},
		},
		{
			// Mistral: each call whole in one delta, the finish reason in
			// the same chunk.
			name: "Mistral whole calls",
			body: sse(
				chunk(`{"role":"assistant","content":""}`, "null"),
				chunk(`{"tool_calls":[{"id":"D681PevKs","function":{"name":"search_documents","arguments":"{\"query\": \"ACME\"}"},"index":0}]}`, `"tool_calls"`)),
			want: []ToolCall{{ID: "D681PevKs", Name: "search_documents", Arguments: json.RawMessage(`{"query": "ACME"}`)}},
		},
		{
			// Ollama's /v1 and Groq: every call whole, in one chunk.
			name: "Ollama /v1 and Groq parallel calls",
			body: sse(
				chunk(`{"role":"assistant","content":"","tool_calls":[{"id":"call_k2j1","index":0,"type":"function","function":{"name":"search_documents","arguments":"{\"query\":\"ACME\"}"}},{"id":"call_p9x4","index":1,"type":"function","function":{"name":"read_page","arguments":"{\"page\":1}"}}]}`, "null"),
				chunk(`{"role":"assistant","content":""}`, `"tool_calls"`)),
			want: []ToolCall{
				{ID: "call_k2j1", Name: "search_documents", Arguments: json.RawMessage(`{"query":"ACME"}`)},
				{ID: "call_p9x4", Name: "read_page", Arguments: json.RawMessage(`{"page":1}`)},
			},
		},
		{
			// A server that sends no index at all: fragments without a
			// name continue the call before them.
			name: "no index",
			body: sse(
				chunk(`{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search_documents","arguments":"{\"query\":"}}]}`, "null"),
				chunk(`{"tool_calls":[{"function":{"arguments":"\"ACME\"}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`)),
			want: []ToolCall{{ID: "call_1", Name: "search_documents", Arguments: json.RawMessage(`{"query":"ACME"}`)}},
		},
		{
			// A server that sends every call at index 0, told apart by
			// their ids.
			name: "every call at index 0",
			body: sse(
				chunk(`{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"search_documents","arguments":"{\"query\":\"ACME\"}"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"id":"call_y","type":"function","function":{"name":"read_page","arguments":"{\"page\":"}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"3}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`)),
			want: []ToolCall{
				{ID: "call_x", Name: "search_documents", Arguments: json.RawMessage(`{"query":"ACME"}`)},
				{ID: "call_y", Name: "read_page", Arguments: json.RawMessage(`{"page":3}`)},
			},
		},
		{
			// OpenRouter: keep-alive comments before the first chunk.
			name: "OpenRouter with processing comments",
			body: ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + sse(
				chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"search_documents","arguments":""}}]}`, "null"),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":\"ACME\"}"}}]}`, "null"),
				chunk(`{}`, `"tool_calls"`)),
			want: []ToolCall{{ID: "toolu_01", Name: "search_documents", Arguments: json.RawMessage(`{"query":"ACME"}`)}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Body: tc.body}})
			_, resp, err := collect(context.Background(), openaiOnly(t, s), withTool(userReq("find ACME")))
			if err != nil {
				t.Fatal(err)
			}
			wantCalls(t, resp.ToolCalls, tc.want...)
			for _, c := range resp.ToolCalls {
				if c.Name == "" {
					t.Errorf("a call without a name: %+v", c)
				}
			}
		})
	}
}

// TestMistralContentPartsAreThinkingAndText: Magistral models stream
// delta.content as typed parts; thinking shows as thinking, text as text.
func TestMistralContentPartsAreThinkingAndText(t *testing.T) {
	body := sse(
		chunk(`{"role":"assistant","content":""}`, "null"),
		chunk(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"The total is "}]}]}`, "null"),
		chunk(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"12 times 3.5."}]}]}`, "null"),
		chunk(`{"content":[{"type":"text","text":"The total is "}]}`, "null"),
		chunk(`{"content":"42 €."}`, "null"),
		chunk(`{"content":""}`, `"stop"`))
	s := modeltest.New(t)
	s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Body: body}})
	ds, resp, err := collect(context.Background(), openaiOnly(t, s), userReq("total?"))
	if err != nil {
		t.Fatal(err)
	}
	th, tx := joined(ds)
	if th != "The total is 12 times 3.5." || tx != "The total is 42 €." {
		t.Errorf("streamed thinking %q, text %q", th, tx)
	}
	if resp.Thinking != th || resp.Text != tx {
		t.Errorf("response thinking %q, text %q", resp.Thinking, resp.Text)
	}
}

// TestServersThatTakeNoToolsSwitchToText: each server family's way of
// saying it takes no tools is KindNoToolSupport, at once (no retry), with
// what the server says to do when it says more than the model's name.
func TestServersThatTakeNoToolsSwitchToText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		say    string // a part of the message
	}{
		{"vLLM before 0.10", 400,
			`{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`,
			"--enable-auto-tool-choice"},
		{"vLLM", 400,
			`{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}`,
			"--tool-call-parser"},
		{"llama.cpp server without --jinja", 500,
			`{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`,
			"--jinja"},
		{"Ollama /v1", 400,
			`{"error":{"message":"registry.ollama.ai/library/qwen3:8b does not support tools","type":"api_error","param":null,"code":null}}`,
			"does not support tool"},
		{"OpenRouter", 404,
			`{"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}}`,
			"No endpoints found that support tool use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Status: tc.status, Body: tc.body}}, modeltest.Reply{Text: "unused"})
			_, _, err := collect(context.Background(), openaiOnly(t, s), withTool(userReq("hi")))
			wantKind(t, err, ErrNoToolSupport, "qwen3:8b does not support tool calling", tc.say)
			if n := len(s.Requests()); n != 1 {
				t.Errorf("%d requests: a server that takes no tools must not be asked again", n)
			}
			if strings.Contains(err.Error(), "{") {
				t.Errorf("raw JSON in %q", err)
			}
		})
	}
}

// TestServerErrorMessagesReadCleanly: the person reads the server's own
// message, once, without JSON, whatever shape the body has.
func TestServerErrorMessagesReadCleanly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		kind   *Error
		say    string
	}{
		{"vLLM before 0.10, flat body", 400,
			`{"object":"error","message":"temperature must be non-negative, got -1.0.","type":"BadRequestError","param":null,"code":400}`,
			ErrRejected, "400 Bad Request: temperature must be non-negative, got -1.0."},
		{"vLLM, context too long", 400,
			`{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}}`,
			ErrContextOverflow, "maximum context length is 4096 tokens"},
		{"llama.cpp server, context too long", 400,
			`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5120,"n_ctx":4096}}`,
			ErrContextOverflow, "exceeds the available context size"},
		{"Mistral validation error", 422,
			`{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","think"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_message_error","param":null,"code":null}`,
			ErrRejected, "body.think: Extra inputs are not permitted"},
		{"DeepSeek insufficient balance", 402,
			`{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`,
			ErrRejected, "402 Payment Required: Insufficient Balance"},
		{"a string error body (LM Studio)", 404,
			`{"error":"Unexpected endpoint or method. (POST /v1/chat/completions)"}`,
			ErrModelNotFound, "Unexpected endpoint or method. (POST /v1/chat/completions)"},
		{"OpenAI, wrong key", 401,
			`{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			ErrAuth, "401 Unauthorized: Incorrect API key provided"},
		{"OpenRouter, upstream provider error", 502,
			`{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Together","raw":"{\"error\":{\"message\":\"model overloaded\"}}"}}}`,
			ErrServerError, "Provider returned error (Together: model overloaded)"},
		{"a proxy's HTML page", 502,
			"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
			ErrServerError, "failed (502 Bad Gateway)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Handle(func(modeltest.Request) modeltest.Reply {
				return modeltest.Reply{Raw: &modeltest.Raw{Status: tc.status, Body: tc.body}}
			})
			cfg := testConfig(s)
			cfg.MaxRetries = -1
			_, _, err := collect(context.Background(), providers(t, cfg)[1], userReq("hi"))
			wantKind(t, err, tc.kind, tc.say)
			msg := err.Error()
			if strings.ContainsAny(msg, "{}<") {
				t.Errorf("raw body in %q", msg)
			}
			if i := strings.Index(msg, tc.say); strings.Contains(msg[i+len(tc.say):], tc.say) {
				t.Errorf("message repeated in %q", msg)
			}
		})
	}
}

// TestErrorsInsideTheStreamReadCleanly: an error event after the headers
// (llama.cpp's and vLLM's {"error": {...}}, OpenRouter's error chunk, vLLM's
// older flat error chunk) shows the server's message, without JSON.
func TestErrorsInsideTheStreamReadCleanly(t *testing.T) {
	for _, tc := range []struct {
		name, body, say string
	}{
		{"llama.cpp server", "data: " + chunk(`{"role":"assistant","content":"The "}`, "null") + "\n\n" +
			`data: {"error":{"code":500,"message":"failed to decode the batch, n_batch = 512, ret = -1","type":"server_error"}}` + "\n\n",
			"failed after 4 characters of the answer: failed to decode the batch, n_batch = 512, ret = -1"},
		{"OpenRouter", "data: " + chunk(`{"role":"assistant","content":"The "}`, "null") + "\n\n" +
			`data: {"id":"cmpl-abc123","object":"chat.completion.chunk","created":1735689600,"model":"qwen3:8b","provider":"openai","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n",
			"failed after 4 characters of the answer: Provider disconnected unexpectedly"},
		{"vLLM before 0.10", "data: " + chunk(`{"role":"assistant","content":"The "}`, "null") + "\n\n" +
			`data: {"object":"error","message":"The engine died unexpectedly.","type":"InternalServerError","param":null,"code":500}` + "\n\n",
			"failed after 4 characters of the answer: The engine died unexpectedly."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t)
			s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Body: tc.body}})
			ds, _, err := collect(context.Background(), openaiOnly(t, s), userReq("hi"))
			wantKind(t, err, ErrServerError, tc.say)
			if strings.ContainsAny(err.Error(), "{}") {
				t.Errorf("raw JSON in %q", err)
			}
			if _, text := joined(ds); text != "The " {
				t.Errorf("streamed %q before the error", text)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("%d requests: a stream that already streamed must not be retried", n)
			}
		})
	}
}

// TestOllamaErrorsReadCleanly: Ollama's {"error": "..."} bodies and lines,
// before and inside the stream, show its message once, without JSON; a
// model name Ollama cannot parse is refused before anything is sent.
func TestOllamaErrorsReadCleanly(t *testing.T) {
	t.Run("error line inside the stream", func(t *testing.T) {
		s := modeltest.New(t)
		s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Body: `{"model":"qwen3:8b","created_at":"2025-06-01T12:00:00Z","message":{"role":"assistant","content":"The "},"done":false}
{"error":"an error was encountered while running the model: unexpected EOF"}
`}})
		ds, _, err := collect(context.Background(), ollamaOnly(t, s), userReq("hi"))
		wantKind(t, err, ErrServerError, "Ollama failed after 4 characters of the answer: an error was encountered while running the model: unexpected EOF")
		if strings.ContainsAny(err.Error(), "{}") {
			t.Errorf("raw JSON in %q", err)
		}
		if _, text := joined(ds); text != "The " {
			t.Errorf("streamed %q", text)
		}
	})
	t.Run("error status before the stream", func(t *testing.T) {
		s := modeltest.New(t)
		s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Status: 400, Body: `{"error":"invalid model name"}`}})
		_, _, err := collect(context.Background(), ollamaOnly(t, s), userReq("hi"))
		wantKind(t, err, ErrRejected, "Ollama rejected the request for qwen3:8b (400 Bad Request: invalid model name)")
	})
	t.Run("a name Ollama cannot parse", func(t *testing.T) {
		s := modeltest.New(t)
		req := userReq("hi")
		req.Model = "Qwen3 8B"
		_, _, err := collect(context.Background(), ollamaOnly(t, s), req)
		wantKind(t, err, ErrModelNotFound, `"Qwen3 8B" is not an Ollama model name`, "qwen3:8b", "ollama list")
		if n := len(s.Requests()); n != 0 {
			t.Errorf("%d chat requests sent for a name Ollama cannot parse", n)
		}
	})
}

// TestCutOffAnswerIsTruncated: done_reason / finish_reason "length" marks
// the response as cut at the output limit, on both wires and Mistral's
// "model_length"; a complete answer is not.
func TestCutOffAnswerIsTruncated(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: `{"total": 4`, DoneReason: "length"}, modeltest.Reply{Text: `{"total": 42}`})
		_, resp, err := collect(context.Background(), p, userReq("total?"))
		if err != nil || !resp.Truncated || resp.DoneReason != "length" || resp.Text != `{"total": 4` {
			t.Errorf("cut answer: %+v, %v; want Truncated", resp, err)
		}
		_, resp, err = collect(context.Background(), p, userReq("total?"))
		if err != nil || resp.Truncated {
			t.Errorf("whole answer: %+v, %v; want not Truncated", resp, err)
		}
	})
	s := modeltest.New(t)
	s.Enqueue(modeltest.Reply{Raw: &modeltest.Raw{Body: sse(chunk(`{"role":"assistant","content":"{\"total\": 4"}`, "null"), chunk(`{"content":""}`, `"model_length"`))}})
	if _, resp, err := collect(context.Background(), openaiOnly(t, s), userReq("total?")); err != nil || !resp.Truncated {
		t.Errorf("Mistral model_length: %+v, %v; want Truncated", resp, err)
	}
}

// TestOllamaStreamsLinesLongerThanTheReadBuffer: a frame far longer than
// the line reader's 4 KiB (a tool call with a long argument) arrives whole,
// its arguments' keys in order.
func TestOllamaStreamsLinesLongerThanTheReadBuffer(t *testing.T) {
	long := strings.Repeat("ACME Corporation, ", 20000) // 360 KB
	args := `{"query":"` + long + `","limit":5,"filters":{"zeta":1,"alpha":2}}`
	s := modeltest.New(t)
	s.Enqueue(modeltest.Reply{Text: strings.Repeat("x", 9000), ChunkRunes: 9000, ToolCalls: []modeltest.ToolCall{{ID: "call_9", Name: "search_documents", Arguments: args}}})
	_, resp, err := collect(context.Background(), ollamaOnly(t, s), withTool(userReq("find")))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Text) != 9000 {
		t.Errorf("text of %d bytes, want 9000", len(resp.Text))
	}
	wantCalls(t, resp.ToolCalls, ToolCall{ID: "call_9", Name: "search_documents", Arguments: json.RawMessage(args)})
}

func TestParseServerErrorShapes(t *testing.T) {
	for body, want := range map[string]serverError{
		`{"error":"model \"x\" not found, try pulling it first"}`:                                 {Message: `model "x" not found, try pulling it first`},
		`{"error":"an error was encountered while running the model","status":500}`:               {Message: "an error was encountered while running the model", Status: 500},
		`{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`: {Message: "Rate limit reached", Type: "tokens", Code: "rate_limit_exceeded"},
		`{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}`:       {Message: "m", Type: "BadRequestError", Code: "400", Status: 400},
		`{"detail":"Not Found"}`: {Message: "Not Found"},
		`{"detail":[{"loc":["body","messages",0,"role"],"msg":"field required","type":"value_error.missing"}]}`: {Message: "body.messages.0.role: field required"},
		"upstream connect error or disconnect/reset before headers\n":                                           {Message: "upstream connect error or disconnect/reset before headers"},
		"<html>502</html>": {},
		"":                 {},
	} {
		got := parseServerError([]byte(body))
		if got.Message != want.Message || got.Type != want.Type || got.Code != want.Code || got.Status != want.Status || got.Header != nil {
			t.Errorf("parseServerError(%s) = %+v, want %+v", body, got, want)
		}
	}
}

func TestOpenRouterRateLimitHeadersInTheBody(t *testing.T) {
	se := parseServerError([]byte(`{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min.","metadata":{"headers":{"X-RateLimit-Limit":"20","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1741305600000"}}}}`))
	if se.Status != http.StatusTooManyRequests || se.Header.Get("X-RateLimit-Reset") != "1741305600000" || se.Message != "Rate limit exceeded: free-models-per-min." {
		t.Errorf("parsed %+v", se)
	}
}
