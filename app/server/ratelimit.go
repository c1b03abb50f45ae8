package server

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The per-minute limit on model-calling requests (storage.UsageLimits.
// PerMinute): the routes that call a model (modelCalling in routeTable,
// listed in docs/protocol.md) and the MCP tools that do count against one
// limit for the whole server, over the last minute. Above it a request is
// answered 429 rate_limited with Retry-After, before it reaches a model.

// codeRateLimited is the code of a request over the per-minute limit; a
// hosted API's refusal has the same code, answered 502 (statusOf), so
// this one is written by tooManyRequests.
const codeRateLimited = "rate_limited"

// minuteWindow holds the times of the model-calling requests let through
// in the last minute.
type minuteWindow struct {
	mu    sync.Mutex
	times []time.Time // oldest first
}

// admit lets a request through when fewer than limit were let through in
// the minute before now, and counts it; otherwise it says how long until
// one more may go.
func (m *minuteWindow) admit(now time.Time, limit int) (wait time.Duration, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	start := now.Add(-time.Minute)
	kept := m.times[:0]
	for _, t := range m.times {
		// A clock moved backwards leaves times after now: they still
		// count, so the limit cannot be dodged by it.
		if t.After(start) {
			kept = append(kept, t)
		}
	}
	m.times = kept
	if len(m.times) >= limit {
		return m.times[len(m.times)-limit].Sub(start), false
	}
	m.times = append(m.times, now)
	return 0, true
}

// admitModelCall reports nil when a model-calling request may go on now,
// and counts it; or the message it is refused with, and how long to wait.
func (s *Server) admitModelCall(ctx context.Context) (msg string, wait time.Duration) {
	l, err := s.cfg.DB.UsageLimits(ctx)
	if err != nil || l.PerMinute <= 0 {
		// A limit that cannot be read holds no request back: the spending
		// limits, which each call checks, still do.
		return "", 0
	}
	wait, ok := s.perMinute.admit(s.now(), l.PerMinute)
	if ok {
		return "", 0
	}
	return fmt.Sprintf("this server takes at most %d model-calling requests a minute; try again in %s, or raise the limit in Settings → Usage or with docent usage limit --per-minute N",
		l.PerMinute, retrySeconds(wait)+" s"), wait
}

// modelCalling wraps a route that calls a model with the per-minute limit.
func (s *Server) modelCalling(h http.HandlerFunc) http.HandlerFunc {
	return s.modelCallingIf(func(*http.Request) bool { return true }, h)
}

// modelCallingIf wraps a route whose requests call a model when calls
// says so (a search by meaning).
func (s *Server) modelCallingIf(calls func(*http.Request) bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if calls(r) {
			if msg, wait := s.admitModelCall(r.Context()); msg != "" {
				w.Header().Set("Retry-After", retrySeconds(wait))
				writeJSON(w, http.StatusTooManyRequests, errorResponse{Error: msg, Code: codeRateLimited})
				return
			}
		}
		h(w, r)
	}
}

// retrySeconds is a wait in whole seconds, rounded up, at least 1.
func retrySeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}
