package provider

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"

	"github.com/docent/docent/storage/secret"
)

// A server may quote a request's Authorization header in its error body
// (gateways and proxies that echo the request do), and what a server says
// reaches people and logs through an *Error's message: the extraction
// that failed, the chat's error event, the CLI's stderr. So each provider
// takes its secrets out of every error it returns, once, here, rather than
// each edge that shows one.

// redacted stands for a secret in a message, as secret.Redact writes it.
const redacted = "[redacted]"

// minSecret is the shortest value replaced wherever it occurs. Shorter
// "keys" are the placeholders local servers are given ("EMPTY", "none",
// "ollama", "test"), and replacing them in every message would garble it
// ("run `[redacted] pull ...`"); a quoted Authorization header still loses
// them to bearerToken.
const minSecret = 8

// bearerToken is a bearer credential as a header quotes it.
var bearerToken = regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+`)

// redactor takes a provider's secrets out of text.
type redactor struct {
	secrets []secret.Value
}

// newRedactor is the redactor of cfg's secrets: the API key, and the
// password of a server URL with credentials (user:pass@host), which the
// HTTP client sends as a Basic Authorization header, with that header's
// encoded credential.
func newRedactor(cfg Config) redactor {
	var r redactor
	add := func(s string) {
		if len(s) >= minSecret {
			r.secrets = append(r.secrets, secret.New(s))
		}
	}
	add(cfg.OpenAIKey)
	for _, raw := range []string{cfg.OllamaHost, cfg.OpenAIBaseURL} {
		raw = strings.TrimSpace(raw)
		if !strings.Contains(raw, "://") {
			raw = "http://" + raw // OLLAMA_HOST's scheme is optional
		}
		u, err := url.Parse(raw)
		if err != nil || u.User == nil {
			continue
		}
		pass, _ := u.User.Password()
		add(pass)
		// What net/http sends for the URL's credentials (SetBasicAuth).
		add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass)))
	}
	return r
}

// string is s without the secrets and without any bearer token.
func (r redactor) string(s string) string {
	s = secret.Redact(s, r.secrets...)
	if strings.Contains(strings.ToLower(s), "bearer") {
		s = bearerToken.ReplaceAllString(s, "${1}"+redacted)
	}
	return s
}

// bytes is string for a body, before it is parsed and clipped (a clip
// could otherwise leave the start of a key).
func (r redactor) bytes(b []byte) []byte {
	s := r.string(string(b))
	if s == string(b) {
		return b
	}
	return []byte(s)
}

// error is err with the secrets taken out of its text: an *Error's
// message, and the text of its cause, which stays reachable by errors.Is
// and errors.As. Any other error whose text holds no secret (the caller's
// own from onDelta, a context error) is returned as it is.
func (r redactor) error(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		c := *e
		c.Message = r.string(e.Message)
		c.Err = r.cause(e.Err)
		return &c
	}
	return r.cause(err)
}

// cause is err, wrapped to read without the secrets when its text has any.
func (r redactor) cause(err error) error {
	if err == nil {
		return nil
	}
	if s := err.Error(); r.string(s) != s {
		return &redactedError{msg: r.string(s), err: err}
	}
	return err
}

// redactedError is an error whose text had a secret in it.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
