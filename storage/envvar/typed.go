package envvar

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The variables with a value of their own are read by typed getters, as
// Ollama's envconfig reads its own: each getter owns its default, gives it
// while the variable is unset and refuses a value it cannot use. The
// table quotes the same constants, so `docent help env`,
// docs/configuration.md and the code cannot disagree.

// The defaults of the variables read as values.
const (
	// DefaultOllamaHost and DefaultOpenAIBaseURL are the servers asked
	// when neither the variable nor the Settings page names one.
	DefaultOllamaHost    = "http://127.0.0.1:11434"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	// DefaultIdleTimeout is ModelIdleTimeout's default.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxContext is MaxContextTokens's default.
	DefaultMaxContext = 32768
	// DefaultKeepAlive is OllamaKeepAlive's default (Ollama's own is 5
	// minutes): long enough that a batch of extractions, or a person
	// reading an answer, does not wait for the model to load again.
	DefaultKeepAlive = 10 * time.Minute
)

// minMaxContext is the smallest DOCENT_MAX_CONTEXT accepted.
const minMaxContext = 512

// ModelIdleTimeout is DOCENT_IDLE_TIMEOUT: how long a model may go
// without sending a token, a positive duration such as 10m.
func ModelIdleTimeout() (time.Duration, error) {
	v := Get(IdleTimeout)
	if v == "" {
		return DefaultIdleTimeout, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 10m", IdleTimeout, v)
	}
	return d, nil
}

// MaxContextTokens is DOCENT_MAX_CONTEXT: the largest context window, in
// tokens, asked of Ollama, at least 512.
func MaxContextTokens() (int, error) {
	v := Get(MaxContext)
	if v == "" {
		return DefaultMaxContext, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < minMaxContext {
		return 0, fmt.Errorf("%s=%q: want a number of tokens, at least %d", MaxContext, v, minMaxContext)
	}
	return n, nil
}

// OllamaKeepAlive is DOCENT_KEEP_ALIVE: how long Ollama keeps a model
// loaded after a call, a positive duration, or -1 (any negative number or
// duration) for as long as Ollama runs. 0, which would unload the model
// after every call, is refused.
func OllamaKeepAlive() (time.Duration, error) {
	v := Get(KeepAlive)
	if v == "" {
		return DefaultKeepAlive, nil
	}
	s := strings.TrimSpace(v)
	if n, err := strconv.Atoi(s); err == nil && n < 0 {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err == nil && d < 0:
		return -1, nil
	case err == nil && d > 0:
		return d, nil
	}
	return 0, fmt.Errorf("%s=%q: want how long Ollama keeps a model loaded after a call, a duration such as 30m, or -1 for as long as it runs", KeepAlive, v)
}

// minutes writes a whole number of minutes as the variables take it: "5m".
func minutes(d time.Duration) string { return strconv.Itoa(int(d/time.Minute)) + "m" }
