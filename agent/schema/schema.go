// Package schema holds Docent's JSON Schema checks: it normalises the
// structured-output response_format that Docent stores, checks a schema before
// it is saved (validate_schema) and validates extracted data against a stored
// schema (validate_against_schema).
//
// Everything here is offline. The draft 2020-12 meta-schema is embedded
// (metaschema/draft2020-12, copied from npm ajv@8 lib/refs/json-schema-2020-12,
// which mirrors json-schema.org), draft-07 is built into
// github.com/kaptinlin/jsonschema, every URL loader of the library's compilers
// is removed, and a $ref that does not start with "#" is rejected before
// compiling.
//
// Paths: problems inside the JSON Schema (Check) and inside validated data
// (Validate) are JSON pointers, "/" being the root. Problems with the
// response_format wrapper itself use dotted paths starting with
// "response_format." so the two never look alike.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// ResponseFormat is the OpenAI structured-output shape Docent stores:
// {type: "json_schema", json_schema: {name, schema, strict: true}}.
type ResponseFormat struct {
	Type       string     `json:"type"`
	JSONSchema JSONSchema `json:"json_schema"`
}

// JSONSchema is the json_schema member of a ResponseFormat.
type JSONSchema struct {
	Name        string          `json:"name"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict"`
	Description string          `json:"description,omitempty"`
}

// Problem is one error or warning, at a JSON-pointer-like path.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Report is the result of Check.
type Report struct {
	Valid    bool      `json:"valid"`
	Errors   []Problem `json:"errors,omitempty"`
	Warnings []Problem `json:"warnings,omitempty"`
}

// MaxNameLength is the longest schema name OpenAI accepts.
const MaxNameLength = 64

// The name expressions are compiled on first use, not at init in every
// docent process (reader children included).
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })
var invalidNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]+`) })

// SanitizeName maps s to a valid response_format name: runs of characters
// outside [a-zA-Z0-9_-] become "_", the result is cut to 64 characters and an
// empty result becomes "schema".
func SanitizeName(s string) string {
	s = invalidNameChars().ReplaceAllString(strings.TrimSpace(s), "_")
	s = strings.Trim(s, "_")
	if len(s) > MaxNameLength {
		s = strings.TrimRight(s[:MaxNameLength], "_")
	}
	if s == "" {
		return "schema"
	}
	return s
}

// Normalize accepts a full response_format object or a bare JSON Schema
// (either may also come as a JSON string holding the JSON) and returns the
// response_format form. A bare schema is named after name (sanitised) and
// gets strict: true. A response_format is returned as given: Check judges it.
func Normalize(raw json.RawMessage, name string) (ResponseFormat, error) {
	var rf ResponseFormat
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return rf, errors.New("schema is empty")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return rf, fmt.Errorf("schema is not valid JSON: %v", err)
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return rf, errors.New("schema is an empty string")
		}
	}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return rf, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return rf, fmt.Errorf("schema must be a JSON object (a response_format or a JSON Schema), got %s", jsonKind(raw))
	}
	if isResponseFormat(obj) {
		if err := json.Unmarshal(raw, &rf); err != nil {
			return rf, fmt.Errorf("response_format has the wrong shape: %v", err)
		}
		return rf, nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return rf, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	rf.Type = "json_schema"
	rf.JSONSchema.Name = SanitizeName(name)
	rf.JSONSchema.Schema = json.RawMessage(compact.Bytes())
	rf.JSONSchema.Strict = true
	return rf, nil
}

// isResponseFormat tells a response_format from a bare JSON Schema: it has a
// json_schema member, or a type that only response_format uses.
func isResponseFormat(obj map[string]json.RawMessage) bool {
	if _, ok := obj["json_schema"]; ok {
		return true
	}
	var t string
	if json.Unmarshal(obj["type"], &t) == nil {
		switch t {
		case "json_schema", "text", "json_object":
			return true
		}
	}
	return false
}

func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// Check validates a response_format: its shape, the inner schema against its
// meta-schema (offline), references (local only), compilation, the object
// root that structured output needs, and strict-mode rules (as warnings).
func Check(rf ResponseFormat) Report {
	var errs, warns []Problem
	add := func(list *[]Problem, path, format string, args ...any) {
		*list = append(*list, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}

	if rf.Type != "json_schema" {
		add(&errs, "response_format.type", "type must be \"json_schema\", got %q", rf.Type)
	}
	switch name := rf.JSONSchema.Name; {
	case name == "":
		add(&errs, "response_format.json_schema.name", "name is required (letters, digits, _ and -, at most 64 characters)")
	case !validName().MatchString(name):
		add(&errs, "response_format.json_schema.name", "name %q is invalid: use only letters, digits, _ and -, at most 64 characters (e.g. %q)", name, SanitizeName(name))
	}
	if rf.Type == "json_schema" && !rf.JSONSchema.Strict && len(bytes.TrimSpace(rf.JSONSchema.Schema)) > 0 {
		add(&warns, "response_format.json_schema.strict", "strict should be true: Docent runs extractions as strict structured output")
	}

	raw := bytes.TrimSpace(rf.JSONSchema.Schema)
	var doc map[string]any
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		add(&errs, "response_format.json_schema.schema", "schema is required: a JSON Schema object with \"type\": \"object\"")
	case !json.Valid(raw):
		add(&errs, "response_format.json_schema.schema", "schema is not valid JSON")
	case raw[0] != '{':
		add(&errs, "response_format.json_schema.schema", "schema must be a JSON object, got %s", jsonKind(raw))
	default:
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			add(&errs, "response_format.json_schema.schema", "schema is not valid JSON: %v", err)
		}
	}
	if doc != nil {
		se, sw := checkSchema(raw, doc)
		errs = append(errs, se...)
		warns = append(warns, sw...)
	}

	sortProblems(errs)
	sortProblems(warns)
	return Report{Valid: len(errs) == 0, Errors: dedupe(errs), Warnings: dedupe(warns)}
}

// checkSchema checks the inner schema; doc is raw decoded.
func checkSchema(raw []byte, doc map[string]any) (errs, warns []Problem) {
	dialect, err := dialectOf(doc)
	if err != nil {
		return []Problem{{Path: "/$schema", Message: err.Error()}}, nil
	}

	w := walk(doc)
	for _, r := range w.refs {
		if !strings.HasPrefix(r.ref, "#") {
			errs = append(errs, Problem{Path: r.path, Message: remoteRefMessage(r.ref)})
		}
	}

	metaErrs, err := metaValidate(raw)
	if err != nil {
		errs = append(errs, Problem{Path: "/", Message: "could not check the schema against the " + dialect + " meta-schema: " + err.Error()})
	}
	errs = append(errs, metaErrs...)

	// Root: structured output needs an object at the top level.
	if t, ok := doc["type"].(string); !ok || t != "object" {
		got := "no \"type\""
		if v, present := doc["type"]; present {
			b, _ := json.Marshal(v)
			got = "\"type\": " + string(b)
		}
		errs = append(errs, Problem{Path: "/type", Message: "the root schema must have \"type\": \"object\" (structured output requires an object at the top level), got " + got})
	}

	if len(errs) == 0 {
		if _, err := compile(raw, w); err != nil {
			var ce *compileError
			if errors.As(err, &ce) {
				errs = append(errs, ce.problems...)
			} else {
				errs = append(errs, Problem{Path: "/", Message: "schema does not compile: " + err.Error()})
			}
		}
	}

	warns = append(warns, w.strict...)
	return errs, warns
}

func remoteRefMessage(ref string) string {
	lower := strings.ToLower(ref)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return fmt.Sprintf("remote $ref not allowed: %q; put the definition under \"$defs\" and use \"#/$defs/...\"", ref)
	}
	return fmt.Sprintf("remote $ref not allowed: %q; only references inside this schema (starting with \"#\", e.g. \"#/$defs/item\") are supported", ref)
}

// dialectOf returns the name of the meta-schema the document declares.
func dialectOf(doc map[string]any) (string, error) {
	v, ok := doc["$schema"]
	if !ok {
		return "draft 2020-12", nil
	}
	s, _ := v.(string)
	switch strings.TrimSuffix(strings.TrimSpace(s), "#") {
	case "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema":
		return "draft 2020-12", nil
	case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema":
		return "draft-07", nil
	}
	b, _ := json.Marshal(v)
	return "", fmt.Errorf("unsupported $schema %s: use \"https://json-schema.org/draft/2020-12/schema\" (the default when $schema is absent) or \"http://json-schema.org/draft-07/schema#\"", b)
}

func dedupe(ps []Problem) []Problem {
	if len(ps) == 0 {
		return nil
	}
	out := ps[:0:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// sortProblems orders by path (numeric segments numerically), then message.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if c := comparePaths(ps[i].Path, ps[j].Path); c != 0 {
			return c < 0
		}
		return ps[i].Message < ps[j].Message
	})
}

func comparePaths(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		an, aok := atoi(as[i])
		bn, bok := atoi(bs[i])
		switch {
		case aok && bok:
			if an < bn {
				return -1
			}
			return 1
		case as[i] < bs[i]:
			return -1
		default:
			return 1
		}
	}
	return len(as) - len(bs)
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
