package provider

import (
	"cmp"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/docent/docent/storage/envvar"
	"github.com/docent/docent/storage/fault"
)

// Defaults for Config fields left zero: those of the environment
// variables that set them (storage/envvar owns them), and the retries.
const (
	DefaultOllamaHost    = envvar.DefaultOllamaHost
	DefaultOpenAIBaseURL = envvar.DefaultOpenAIBaseURL
	DefaultIdleTimeout   = envvar.DefaultIdleTimeout
	DefaultMaxRetries    = 3
	DefaultMaxNumCtx     = envvar.DefaultMaxContext
	DefaultKeepAlive     = envvar.DefaultKeepAlive
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

// ConfigFromEnv reads OLLAMA_HOST, OPENAI_BASE_URL and OPENAI_API_KEY as
// they are ("" when unset: the Settings page may name them), and Docent's
// own limits through their typed getters, defaults included:
// DOCENT_IDLE_TIMEOUT, DOCENT_MAX_CONTEXT and DOCENT_KEEP_ALIVE. A value
// the getter refuses is an invalid error that names the variable.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		OllamaHost:    envvar.Get(envvar.OllamaHost),
		OpenAIBaseURL: envvar.Get(envvar.OpenAIBase),
		OpenAIKey:     envvar.Get(envvar.OpenAIKey),
	}
	var err error
	if cfg.IdleTimeout, err = envvar.ModelIdleTimeout(); err != nil {
		return Config{}, fault.Errorf(fault.Invalid, "%w", err)
	}
	if cfg.MaxNumCtx, err = envvar.MaxContextTokens(); err != nil {
		return Config{}, fault.Errorf(fault.Invalid, "%w", err)
	}
	if cfg.KeepAlive, err = envvar.OllamaKeepAlive(); err != nil {
		return Config{}, fault.Errorf(fault.Invalid, "%w", err)
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
