package provider

import (
	"cmp"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/storage/envvar"
	"github.com/docent/docent/storage/fault"
)

// Defaults for Config fields left zero.
const (
	DefaultOllamaHost    = "http://127.0.0.1:11434"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultIdleTimeout   = 5 * time.Minute
	DefaultMaxRetries    = 3
	DefaultMaxNumCtx     = 32768
	// DefaultKeepAlive is how long Ollama keeps a model loaded after a
	// call (its own default is 5 minutes): long enough that a batch of
	// extractions, or a person reading an answer, does not wait for the
	// model to load again.
	DefaultKeepAlive = 10 * time.Minute
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
	// KeepAlive is Ollama's keep_alive, sent with every chat: how long the
	// model stays loaded after it. 0 means DefaultKeepAlive; a negative
	// value keeps it loaded until Ollama stops.
	KeepAlive time.Duration
	// HTTPClient is used for every request; it must not have a Timeout
	// (streams are long). Default: a client without one.
	HTTPClient *http.Client
}

// ConfigFromEnv reads OLLAMA_HOST, OPENAI_BASE_URL and OPENAI_API_KEY, and
// Docent's own limits: DOCENT_IDLE_TIMEOUT (a duration such as 10m: how long
// a slow model may go without sending a token), DOCENT_MAX_CONTEXT (the
// largest context window, in tokens, Docent asks Ollama for) and
// DOCENT_KEEP_ALIVE (how long Ollama keeps a model loaded after a call: a
// duration such as 30m, or -1 for as long as Ollama runs).
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		OllamaHost:    envvar.Get(envvar.OllamaHost),
		OpenAIBaseURL: envvar.Get(envvar.OpenAIBase),
		OpenAIKey:     envvar.Get(envvar.OpenAIKey),
	}
	if v := envvar.Get(envvar.IdleTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Config{}, fault.Errorf(fault.Invalid, "DOCENT_IDLE_TIMEOUT=%q: want a positive duration such as 10m", v)
		}
		cfg.IdleTimeout = d
	}
	if v := envvar.Get(envvar.MaxContext); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 512 {
			return Config{}, fault.Errorf(fault.Invalid, "DOCENT_MAX_CONTEXT=%q: want a number of tokens, at least 512", v)
		}
		cfg.MaxNumCtx = n
	}
	if v := envvar.Get(envvar.KeepAlive); v != "" {
		d, err := parseKeepAlive(v)
		if err != nil {
			return Config{}, err
		}
		cfg.KeepAlive = d
	}
	return cfg, nil
}

// parseKeepAlive reads DOCENT_KEEP_ALIVE: a positive duration, or a
// negative one ("-1", "-1s") for as long as Ollama runs. 0, which would
// unload the model after every call, is refused.
func parseKeepAlive(v string) (time.Duration, error) {
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
	return 0, fault.Errorf(fault.Invalid, "DOCENT_KEEP_ALIVE=%q: want how long Ollama keeps a model loaded after a call, a duration such as 30m, or -1 for as long as it runs", v)
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
	c.KeepAlive = cmp.Or(c.KeepAlive, DefaultKeepAlive)
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
