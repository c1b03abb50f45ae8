package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// testKey is an API key as OpenAI issues them.
const testKey = "sk-proj-4fQ9xT2mV7bN1cR8kL3wZ6yH0jD5sA"

// errorTexts is the text of err and of every error it wraps.
func errorTexts(err error) []string {
	var out []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		out = append(out, e.Error())
	}
	return append(out, fmt.Sprintf("%+v", err))
}

// TestServerQuotingTheAuthorizationHeaderShowsNoKey: a server whose error
// body quotes the request's Authorization header (an echoing gateway) gives
// an error whose message, and every error it wraps, has the key replaced,
// on both wires, for every status and whatever the provider call.
func TestServerQuotingTheAuthorizationHeaderShowsNoKey(t *testing.T) {
	const password = "hunter2-correct-horse"
	for _, status := range []int{http.StatusUnauthorized, http.StatusBadRequest, http.StatusInternalServerError, http.StatusTooManyRequests} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			s := modeltest.New(t)
			cfg := testConfig(s)
			cfg.OpenAIKey = testKey
			// Ollama sends no key; credentials in OLLAMA_HOST go as a
			// Basic Authorization header.
			cfg.OllamaHost = strings.Replace(s.OllamaURL(), "://", "://docent:"+password+"@", 1)
			cfg.MaxRetries = -1
			for _, p := range providers(t, cfg) {
				s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: status, Message: "bad request", QuoteAuthorization: true}})
				_, _, err := collect(context.Background(), p, userReq("hi"))
				if err == nil {
					t.Fatalf("%s: no error", p.Name())
				}
				rec := s.Requests()[len(s.Requests())-1]
				sent := rec.Header.Get("Authorization")
				if sent == "" {
					t.Fatalf("%s: the request had no Authorization header to quote", p.Name())
				}
				if ErrorKind(err) == "" {
					t.Errorf("%s: %v is not a provider error", p.Name(), err)
				}
				for _, text := range errorTexts(err) {
					for _, secret := range []string{testKey, password, strings.TrimPrefix(sent, "Basic "), strings.TrimPrefix(sent, "Bearer ")} {
						if strings.Contains(text, secret) {
							t.Errorf("%s: error text %q holds the secret %q", p.Name(), text, secret)
						}
					}
				}
				if !strings.Contains(err.Error(), "bad request") || !strings.Contains(err.Error(), redacted) {
					t.Errorf("%s: %q does not say what the server said with the key %s", p.Name(), err, redacted)
				}
			}
		})
	}
}

// TestShortKeyQuotedAsABearerTokenIsRedacted: a key too short to be
// replaced wherever it occurs (a local server's placeholder) is still taken
// out of a quoted Authorization header.
func TestShortKeyQuotedAsABearerTokenIsRedacted(t *testing.T) {
	s := modeltest.New(t)
	cfg := testConfig(s) // OpenAIKey "test"
	cfg.MaxRetries = -1
	s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusUnauthorized, Message: "no", QuoteAuthorization: true}})
	_, _, err := collect(context.Background(), providers(t, cfg)[1], userReq("hi"))
	if err == nil || strings.Contains(err.Error(), "Bearer test") || !strings.Contains(err.Error(), "Bearer "+redacted) {
		t.Errorf("err = %v, want the bearer token redacted", err)
	}
}

func TestRedactorLeavesOrdinaryTextAlone(t *testing.T) {
	r := newRedactor(Config{OpenAIKey: "EMPTY", OllamaHost: "http://127.0.0.1:11434"})
	for _, s := range []string{"EMPTY context", "a basic error", "model qwen3:8b is not pulled"} {
		if got := r.string(s); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
	if err := errors.New("plain"); r.error(err) != err {
		t.Error("an error without a secret was wrapped")
	}
}
