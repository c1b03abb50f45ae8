package provider

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
)

// A server may quote a request's Authorization header in its error body
// (gateways and proxies that echo the request do), and what a server says
// reaches people and logs through an *Error's message: the extraction
// that failed, the chat's error event, the CLI's stderr. So each provider
// takes its secrets out of every error it returns, once, here, rather than
// each edge that shows one.

// redacted stands for a secret in a message.
const redacted = "[redacted]"

// minSecret is the shortest value treated as a secret. Shorter "keys" are
// the placeholders local servers are given ("EMPTY", "none", "ollama"), and
// replacing them wherever they occur would garble messages; a quoted
// Authorization header still loses them to bearerToken.
const minSecret = 8

// bearerToken is a bearer credential as a header quotes it.
var bearerToken = regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+`)

// redactor takes a provider's secrets out of text.
type redactor struct {
	// secrets replaces each secret with redacted; nil when there is none.
	secrets *strings.Replacer
}

// newRedactor is the redactor of cfg's secrets: the API key, and the
// password of a server URL with credentials (user:pass@host), which the
// HTTP client sends as a Basic Authorization header, with that header's
// encoded credential.
func newRedactor(cfg Config) redactor {
	var pairs []string
	add := func(s string) {
		if len(s) >= minSecret {
			pairs = append(pairs, s, redacted)
		}
	}
	add(cfg.OpenAIKey)
	for _, raw := range []string{cfg.OllamaHost, cfg.OpenAIBaseURL} {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.User == nil {
			continue
		}
		pass, _ := u.User.Password()
		add(pass)
		add(base64.StdEncoding.EncodeToString([]byte(u.User.String())))
		if s, err := url.PathUnescape(u.User.String()); err == nil {
			add(base64.StdEncoding.EncodeToString([]byte(s)))
		}
	}
	if len(pairs) == 0 {
		return redactor{}
	}
	return redactor{secrets: strings.NewReplacer(pairs...)}
}

// string is s without the secrets and without any bearer token.
func (r redactor) string(s string) string {
	if r.secrets != nil {
		s = r.secrets.Replace(s)
	}
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
