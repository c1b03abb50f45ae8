// Package secret keeps secrets — the OpenAI API key — out of the database
// file and out of every text Docent writes: in the OS keyring where there
// is one, else sealed (AES-256-GCM) with a key kept in a file beside the
// database, so that a copy of docent.db alone does not reveal them.
//
// A secret travels as a Value, which never prints, logs or marshals its
// contents; Reveal is the one way to read it, for the request that needs
// it.
package secret

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
)

// redacted is what a Value shows of itself.
const redacted = "[redacted]"

// Value is a secret string. fmt (every verb), log/slog and encoding/json
// see "[redacted]" (or "" for the zero Value), so a Value that ends up in
// a log line, an error or a JSON answer by mistake gives nothing away.
// The zero Value is no secret.
type Value struct{ s string }

// New wraps s.
func New(s string) Value { return Value{s: s} }

// Reveal returns the secret itself: for the request that sends it, and
// nothing else.
func (v Value) Reveal() string { return v.s }

// IsZero reports whether there is no secret.
func (v Value) IsZero() bool { return v.s == "" }

func (v Value) shown() string {
	if v.s == "" {
		return ""
	}
	return redacted
}

// String is "[redacted]".
func (v Value) String() string { return v.shown() }

// GoString is "[redacted]", for %#v.
func (v Value) GoString() string { return v.shown() }

// Format prints "[redacted]" for every verb, %x and %q included, which
// would otherwise reach the string inside a struct.
func (v Value) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(v.shown())) }

// LogValue is "[redacted]".
func (v Value) LogValue() slog.Value { return slog.StringValue(v.shown()) }

// MarshalJSON writes "[redacted]": a Value is never marshalled back to
// where it came from.
func (v Value) MarshalJSON() ([]byte, error) { return json.Marshal(v.shown()) }

// UnmarshalJSON reads a JSON string, so a request body can carry a key.
// Its errors never quote the input.
func (v *Value) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a secret must be a JSON string")
	}
	v.s = s
	return nil
}

// Redact replaces every occurrence of the secrets in text with
// "[redacted]": for error messages that may echo what was sent (a server
// that quotes the Authorization header back, a URL that carries a key).
// Secrets shorter than 4 characters are left alone: replacing them would
// garble the text and hide nothing worth hiding.
func Redact(text string, secrets ...Value) string {
	for _, s := range secrets {
		if len(s.s) >= 4 {
			text = strings.ReplaceAll(text, s.s, redacted)
		}
	}
	return text
}
