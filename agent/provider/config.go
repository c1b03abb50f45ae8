package provider

import (
	"cmp"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/storage/fault"
)

// Defaults for Config fields left zero.
const (
	DefaultOllamaHost    = "http://127.0.0.1:11434"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultIdleTimeout   = 5 * time.Minute
	DefaultMaxRetries    = 3
	DefaultMaxNumCtx     = 32768
)

// Config says where the providers are and how patient to be.
type Config struct {
	// OllamaHost is OLLAMA_HOST: a URL or host:port (default
	// http://127.0.0.1:11434).
	OllamaHost string
	// OpenAIBaseURL is OPENAI_BASE_URL (default https://api.openai.com/v1).
	OpenAIBaseURL string
	// OpenAIKey is OPENAI_API_KEY.
	OpenAIKey string
	// IdleTimeout is the time allowed between two received chunks (and
	// before the first), measured from the last one: never a total
	// deadline. Default 5 minutes.
	IdleTimeout time.Duration
	// MaxRetries is how often a 429 or 5xx is retried (default 3; a
	// negative value means none).
	MaxRetries int
	// MaxNumCtx caps the num_ctx chosen for Ollama (default 32768).
	MaxNumCtx int
	// HTTPClient is used for every request; it must not have a Timeout
	// (streams are long). Default: a client without one.
	HTTPClient *http.Client
}

// ConfigFromEnv reads OLLAMA_HOST, OPENAI_BASE_URL and OPENAI_API_KEY, and
// Docent's own limits: DOCENT_IDLE_TIMEOUT (a duration such as 10m: how long
// a slow model may go without sending a token) and DOCENT_MAX_CONTEXT (the
// largest context window, in tokens, Docent asks Ollama for).
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		OllamaHost:    os.Getenv("OLLAMA_HOST"),
		OpenAIBaseURL: os.Getenv("OPENAI_BASE_URL"),
		OpenAIKey:     os.Getenv("OPENAI_API_KEY"),
	}
	if v := os.Getenv("DOCENT_IDLE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fault.Errorf(fault.Invalid, "DOCENT_IDLE_TIMEOUT=%q: want a positive duration such as 10m", v)
		}
		cfg.IdleTimeout = d
	}
	if v := os.Getenv("DOCENT_MAX_CONTEXT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 512 {
			return Config{}, fault.Errorf(fault.Invalid, "DOCENT_MAX_CONTEXT=%q: want a number of tokens, at least 512", v)
		}
		cfg.MaxNumCtx = n
	}
	return cfg, nil
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	c.OllamaHost = cmp.Or(c.OllamaHost, DefaultOllamaHost)
	c.OpenAIBaseURL = strings.TrimRight(cmp.Or(c.OpenAIBaseURL, DefaultOpenAIBaseURL), "/")
	c.IdleTimeout = cmp.Or(c.IdleTimeout, DefaultIdleTimeout)
	// A negative MaxRetries stays negative (meaning none) so that applying
	// the defaults twice, as NewRegistry and the providers both do, gives
	// the same result.
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	c.MaxNumCtx = cmp.Or(c.MaxNumCtx, DefaultMaxNumCtx)
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// ollamaURL parses OLLAMA_HOST the way Ollama does: a scheme is optional
// (http), so is the port (11434); "0.0.0.0" means this machine.
func ollamaURL(host string) (*url.URL, error) {
	host = strings.TrimSpace(host)
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, err
	}
	h, port := u.Hostname(), u.Port()
	if h == "" || h == "0.0.0.0" {
		h = "127.0.0.1"
	}
	if port == "" {
		port = "11434"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	u.Host = net.JoinHostPort(h, port)
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}
