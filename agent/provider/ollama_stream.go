package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/auth"
	"github.com/ollama/ollama/envconfig"

	"github.com/docent/docent/agent/textfmt"
)

// ollamaLine is one line of an /api/chat stream: a frame, or an error that
// Ollama reports after the headers were sent ({"error": "...", "status": 500}).
type ollamaLine struct {
	api.ChatResponse
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// attempt makes one streamed call to /api/chat, reading its NDJSON lines
// with a small pooled reader (lineReader) over the provider's HTTP client.
// The api client would allocate an 8 MiB buffer per call for the same
// lines. Each line is decoded into the api package's types; a tool call's
// arguments are also read raw from the same line, to keep their key order.
func (p *Ollama) attempt(ctx context.Context, name string, tools bool, body []byte, onDelta func(Delta) error) (attemptResult, error) {
	var (
		res    attemptResult
		frames int
		done   bool
	)
	d := deltas{onDelta: onDelta}
	actx, wd := newWatchdog(ctx, p.cfg.IdleTimeout)
	defer wd.stop()

	err := p.stream(actx, name, tools, body, func(line []byte) error {
		wd.kick()
		if done || len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		frames++
		var f ollamaLine
		if err := json.Unmarshal(line, &f); err != nil {
			return newError(KindBadResponse, err, "Ollama sent a malformed response after %d characters: %s", d.chars, textfmt.Shorten(p.red.string(string(line)), 120))
		}
		if f.Error != "" {
			return p.streamError(name, tools, line, f.Status, d.chars)
		}
		if err := d.add(f.Message.Thinking, ""); err != nil {
			return err
		}
		if err := d.content(f.Message.Content); err != nil {
			return err
		}
		if calls := f.Message.ToolCalls; len(calls) > 0 {
			raw := rawToolArguments(line, calls)
			for i, tc := range calls {
				var rawArgs json.RawMessage
				if raw != nil {
					rawArgs = raw[i]
				}
				args, err := toolArguments(tc, rawArgs)
				if err != nil {
					return newError(KindBadResponse, err, "Ollama sent tool call arguments that cannot be encoded: %v", err)
				}
				id := tc.ID
				if id == "" {
					id = "call_" + strconv.Itoa(len(res.ToolCalls)+1)
				}
				res.ToolCalls = append(res.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
			}
		}
		if f.Done {
			done = true
			res.DoneReason, res.Truncated = f.DoneReason, cutAtLimit(f.DoneReason)
			res.Usage = Usage{PromptTokens: f.PromptEvalCount, CompletionTokens: f.EvalCount}
			return d.flush()
		}
		return nil
	})
	d.fill(&res)

	var cb *callbackError
	var pe *Error
	switch {
	case errors.As(err, &cb):
		return res, cb.err
	case errors.As(err, &pe):
		return res, pe
	case done:
		return res, nil // whatever followed the final frame does not matter
	case fired(actx):
		return res, timeoutError(p.cfg.IdleTimeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil:
		return res, p.transportError(err, d.chars, frames)
	}
	return res, interrupted(d.chars, nil)
}

// stream posts body to /api/chat and calls fn with each line of the
// answer until the body ends. An error status comes back as an *Error in
// the server's words.
func (p *Ollama) stream(ctx context.Context, name string, tools bool, body []byte, fn func(line []byte) error) error {
	req, err := p.chatRequest(ctx, body)
	if err != nil {
		return err
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && len(b) == 0 {
			return err
		}
		return p.statusError(name, tools, resp.StatusCode, resp.Header, b)
	}
	lr := newLineReader(resp.Body)
	defer lr.release()
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// chatRequest is the POST of body to /api/chat, signed as the api client
// signs it when OLLAMA_AUTH is set or the host is ollama.com.
func (p *Ollama) chatRequest(ctx context.Context, body []byte) (*http.Request, error) {
	const path = "/api/chat"
	u := p.base.JoinPath(path)
	var token string
	if envconfig.UseAuth() || p.base.Hostname() == "ollama.com" {
		now := strconv.FormatInt(time.Now().Unix(), 10)
		var err error
		if token, err = auth.Sign(ctx, []byte(fmt.Sprintf("%s,%s?ts=%s", http.MethodPost, path, now))); err != nil {
			return nil, newError(KindAuth, err, "cannot sign the request to Ollama at %s: %v", p.base, err)
		}
		q := u.Query()
		q.Set("ts", now)
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("User-Agent", "docent")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	return req, nil
}

// streamError is an error line in the stream: Ollama's message, once,
// with the status it gives, if any.
func (p *Ollama) streamError(name string, tools bool, line []byte, status, chars int) *Error {
	line = p.red.bytes(line)
	se := parseServerError(line)
	if status != 0 {
		e := p.statusError(name, tools, status, nil, line)
		if chars > 0 && e.Kind == KindServerError {
			e.Message = fmt.Sprintf("Ollama failed after %d characters of the answer (%s)", chars, said(status, se.Message))
		}
		return e
	}
	if chars > 0 {
		return newError(KindServerError, nil, "Ollama failed after %d characters of the answer: %s", chars, se.Message)
	}
	return newError(KindServerError, nil, "Ollama failed: %s", se.Message)
}

// maxLine is the longest line read, as long as the api client accepts.
const maxLine = 8 << 20

// lineReaders keeps the 4 KiB readers of finished streams for the next.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// lineReader reads the lines of a stream with a pooled 4 KiB reader; only a
// line longer than that is copied, into a buffer that grows as far as the
// longest line needs (up to maxLine).
type lineReader struct {
	r    *bufio.Reader
	long []byte
}

func newLineReader(r io.Reader) *lineReader {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{r: br}
}

// next returns the next line without its "\n" or "\r\n", valid until the
// next call; io.EOF after the last one (which may lack its newline).
func (l *lineReader) next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = l.r.ReadSlice('\n')
			l.long = append(l.long, line...)
			if len(l.long) > maxLine {
				return nil, fmt.Errorf("a line of the stream is over %d MiB", maxLine>>20)
			}
		}
		line = l.long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// release returns the reader to the pool.
func (l *lineReader) release() {
	l.r.Reset(nil)
	lineReaders.Put(l.r)
	l.r = nil
}

// cutAtLimit reports whether a done or finish reason means the answer was
// cut at the output limit: "length" (Ollama, OpenAI and every compatible
// server), "model_length" (Mistral: the model's context was full),
// "max_tokens".
func cutAtLimit(reason string) bool {
	switch reason {
	case "length", "model_length", "max_tokens":
		return true
	}
	return false
}
