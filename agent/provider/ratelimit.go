package provider

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serverWait is how long a server asked a client to wait before the next
// request, and the header that said so.
type serverWait struct {
	d    time.Duration
	from string
}

func (w serverWait) String() string {
	return roundWait(w.d).String() + " (" + w.from + ")"
}

// roundWait shows a wait to the second, or to the millisecond under one.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// rateLimitWait reads the wait a rate-limited (or overloaded) server asks
// for, from the first of these headers that it sends:
//
//   - Retry-After-Ms: milliseconds (OpenAI)
//   - Retry-After: seconds or an HTTP date (RFC 9110)
//   - X-RateLimit-Reset-Requests, X-RateLimit-Reset-Tokens: a duration
//     such as "1s", "6m0s", "20ms" or "2m59.56s" (OpenAI, Groq); when both
//     come, the one whose X-RateLimit-Remaining-* is 0 is the limit hit,
//     else the longer
//   - X-RateLimit-Reset: a Unix time in milliseconds (OpenRouter) or
//     seconds, or a number of seconds from now
//
// It returns the zero wait when the headers say nothing usable.
func rateLimitWait(h http.Header, now time.Time) serverWait {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < math.MaxInt64/1e6 {
			return serverWait{time.Duration(ms * float64(time.Millisecond)), "Retry-After-Ms"}
		}
	}
	if d := parseRetryAfter(h.Get("Retry-After"), now); d > 0 {
		return serverWait{d, "Retry-After"}
	}
	req := parseResetDuration(h.Get("X-RateLimit-Reset-Requests"))
	tok := parseResetDuration(h.Get("X-RateLimit-Reset-Tokens"))
	reqOut := strings.TrimSpace(h.Get("X-RateLimit-Remaining-Requests")) == "0"
	tokOut := strings.TrimSpace(h.Get("X-RateLimit-Remaining-Tokens")) == "0"
	useReq := req > 0 && tok == 0
	if req > 0 && tok > 0 {
		useReq = reqOut && !tokOut || reqOut == tokOut && req >= tok
	}
	switch {
	case useReq:
		return serverWait{req, "X-RateLimit-Reset-Requests"}
	case tok > 0:
		return serverWait{tok, "X-RateLimit-Reset-Tokens"}
	}
	if d := parseResetTime(h.Get("X-RateLimit-Reset"), now); d > 0 {
		return serverWait{d, "X-RateLimit-Reset"}
	}
	return serverWait{}
}

// parseResetDuration reads a Go-style duration ("6m0s", "20ms"), or plain
// seconds ("30", "1.5").
func parseResetDuration(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

// parseResetTime reads X-RateLimit-Reset: a Unix time in milliseconds
// (OpenRouter) or in seconds, or a number of seconds (or a duration) from
// now. A time already past gives 0.
func parseResetTime(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return parseResetDuration(v)
	}
	var at time.Time
	switch {
	case n >= 1e11: // milliseconds since the epoch (1e11 s would be the year 5138)
		at = time.UnixMilli(int64(n))
	case n >= 1e8: // seconds since the epoch (1e8 s from now would be three years)
		at = time.Unix(int64(n), 0)
	default:
		return parseResetDuration(v)
	}
	if d := at.Sub(now); d > 0 {
		return d
	}
	return 0
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
