package provider

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docent/docent/agent/modeltest"
)

// eachProviderInBubble runs fn once per wire format inside a synctest
// bubble, against an in-memory scripted server: every wait (backoff, the
// server's Retry-After, idle timeouts) runs on the bubble's clock, so a
// test can say exactly how long a call waited without taking that long.
func eachProviderInBubble(t *testing.T, fn func(t *testing.T, s *modeltest.Server, p Provider)) {
	for _, name := range []string{"ollama", "openai"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := modeltest.NewInMemory(t)
				for _, p := range providers(t, testConfig(s)) {
					if p.Name() == name {
						fn(t, s, p)
					}
				}
			})
		})
	}
}

// TestRateLimitWaitsWhatTheServerAsks: a 429 is retried after the wait the
// server's headers ask for, each family's headers read its own way.
func TestRateLimitWaitsWhatTheServerAsks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header func(now time.Time) http.Header
		wait   time.Duration
	}{
		{"Retry-After", func(time.Time) http.Header {
			return http.Header{"Retry-After": {"7"}}
		}, 7 * time.Second},
		{"OpenAI, requests per minute spent", func(time.Time) http.Header {
			return http.Header{
				"X-Ratelimit-Limit-Requests": {"60"}, "X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"20s"},
				"X-Ratelimit-Limit-Tokens": {"150000"}, "X-Ratelimit-Remaining-Tokens": {"149984"}, "X-Ratelimit-Reset-Tokens": {"6m0s"},
			}
		}, 20 * time.Second},
		{"Groq, tokens per minute spent", func(time.Time) http.Header {
			return http.Header{
				"X-Ratelimit-Remaining-Requests": {"14370"}, "X-Ratelimit-Reset-Requests": {"2m59.56s"},
				"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"7.66s"},
			}
		}, 7660 * time.Millisecond},
		{"OpenAI, milliseconds", func(time.Time) http.Header {
			return http.Header{"X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"20ms"}}
		}, 20 * time.Millisecond},
		{"OpenRouter, epoch milliseconds", func(now time.Time) http.Header {
			return http.Header{"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {"0"},
				"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(30*time.Second).UnixMilli(), 10)}}
		}, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
				start := time.Now()
				s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 429, Message: "Rate limit reached", Header: tc.header(start)}}, modeltest.Reply{Text: "ok"})
				_, resp, err := collect(context.Background(), p, userReq("hi"))
				if err != nil || resp.Text != "ok" {
					t.Fatalf("resp %+v err %v", resp, err)
				}
				if d := time.Since(start); d != tc.wait {
					t.Errorf("retried after %v, want the %v the server asked for", d, tc.wait)
				}
			})
		})
	}
}

// TestRateLimitLongerThanTheCapFailsAtOnceSayingTheWait: a per-minute or
// per-day limit is not waited out in a retry loop: the call fails at once
// and says how long the server asked to wait.
func TestRateLimitLongerThanTheCapFailsAtOnceSayingTheWait(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 429, Message: "Rate limit reached for tokens per min", Header: http.Header{
			"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"6m0s"},
		}}})
		start := time.Now()
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrRateLimited, "Rate limit reached for tokens per min", "asks to wait 6m0s (X-RateLimit-Reset-Tokens)")
		if n, d := len(s.Requests()), time.Since(start); n != 1 || d != 0 {
			t.Errorf("%d requests over %v, want 1 and no wait", n, d)
		}
	})
}

// TestRateLimitGivesUpSayingTheLastWait: when the retries are spent, the
// error says how many attempts were made and the wait last asked for.
func TestRateLimitGivesUpSayingTheLastWait(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Handle(func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Fault: modeltest.Fault{Status: 429, Message: "slow down", Header: http.Header{
				"X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"20s"}}}}
		})
		start := time.Now()
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrRateLimited, "slow down", "after 3 attempts; it last asked to wait 20s")
		if d := time.Since(start); d != 40*time.Second {
			t.Errorf("gave up after %v, want two waits of 20s", d)
		}
	})
}

func TestChatHonoursRetryAfter(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 429, Message: "slow down", RetryAfter: "1"}}, modeltest.Reply{Text: "ok"})
		start := time.Now()
		_, resp, err := collect(context.Background(), p, userReq("hi"))
		if err != nil || resp.Text != "ok" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("retried after %v, want the 1s Retry-After", d)
		}
	})
}

func TestChatRetryWaitStopsWithContext(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 429, RetryAfter: "30"}})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := collect(ctx, p, userReq("hi"))
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 200*time.Millisecond {
			t.Errorf("err %v after %v, want the context's deadline at 200ms", err, time.Since(start))
		}
	})
}

func TestChatSlowFirstTokenTimesOut(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		cfg := testConfig(s)
		cfg.IdleTimeout = 200 * time.Millisecond
		p = providers(t, cfg)[map[string]int{"ollama": 0, "openai": 1}[p.Name()]]
		s.Enqueue(modeltest.Reply{Text: "late", Fault: modeltest.Fault{FirstTokenDelay: 10 * time.Second}})
		start := time.Now()
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrTimeout, "no token from the model for 200ms")
		if d := time.Since(start); d != 200*time.Millisecond {
			t.Errorf("timed out after %v, want 200ms", d)
		}
	})
}

func TestChatIdleTimeoutIsNotATotalDeadline(t *testing.T) {
	eachProviderInBubble(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		cfg := testConfig(s)
		cfg.IdleTimeout = 300 * time.Millisecond
		p = providers(t, cfg)[map[string]int{"ollama": 0, "openai": 1}[p.Name()]]
		// 12 frames 100ms apart: over a second in all, never 300ms idle.
		s.Enqueue(modeltest.Reply{Thinking: "abcdefgh", Text: "slow but steady", ChunkRunes: 2, TokenDelay: 100 * time.Millisecond})
		start := time.Now()
		_, resp, err := collect(context.Background(), p, userReq("hi"))
		if err != nil || resp.Text != "slow but steady" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("took %v, want over a second of frames", d)
		}
	})
}

func TestRateLimitWaitReadsEachFamilysHeaders(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		from string
	}{
		{http.Header{"Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond, "Retry-After-Ms"},
		{http.Header{"Retry-After": {"Sun, 01 Jun 2025 12:00:30 GMT"}}, 30 * time.Second, "Retry-After"},
		{http.Header{"X-Ratelimit-Reset-Requests": {"1s"}, "X-Ratelimit-Reset-Tokens": {"6m0s"}}, 6 * time.Minute, "X-RateLimit-Reset-Tokens"},
		{http.Header{"X-Ratelimit-Reset-Requests": {"1m30s"}, "X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Tokens": {"6m0s"}}, 90 * time.Second, "X-RateLimit-Reset-Requests"},
		{http.Header{"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(45*time.Second).UnixMilli(), 10)}}, 45 * time.Second, "X-RateLimit-Reset"},
		{http.Header{"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(45*time.Second).Unix(), 10)}}, 45 * time.Second, "X-RateLimit-Reset"},
		{http.Header{"X-Ratelimit-Reset": {"12"}}, 12 * time.Second, "X-RateLimit-Reset"},
		{http.Header{"X-Ratelimit-Reset": {strconv.FormatInt(now.Add(-time.Minute).UnixMilli(), 10)}}, 0, ""},
		{http.Header{"X-Ratelimit-Reset-Tokens": {"soon"}}, 0, ""},
		{nil, 0, ""},
	} {
		if got := rateLimitWait(tc.h, now); got.d != tc.want || got.from != tc.from {
			t.Errorf("rateLimitWait(%v) = %v from %q, want %v from %q", tc.h, got.d, got.from, tc.want, tc.from)
		}
	}
}
