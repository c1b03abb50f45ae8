package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kaptinlin/jsonschema"
)

// The draft 2020-12 meta-schema split into its vocabularies, copied verbatim
// from npm ajv@8 (lib/refs/json-schema-2020-12).
//
//go:embed metaschema/draft2020-12
var metaFS embed.FS

var metaFiles = []string{
	"meta/core.json", "meta/applicator.json", "meta/unevaluated.json", "meta/validation.json",
	"meta/meta-data.json", "meta/format-annotation.json", "meta/content.json", "schema.json",
}

// offlineCompiler returns a compiler that cannot load anything: the http and
// https loaders the library registers by default are removed, so an
// unresolvable $ref or $schema fails instead of making a network call.
func offlineCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	for scheme := range c.Loaders {
		delete(c.Loaders, scheme)
	}
	c.SetDefaultDialect(jsonschema.Draft202012)
	return c
}

var (
	metaOnce     sync.Once
	metaCompiler *jsonschema.Compiler
	metaErr      error
)

// meta returns the shared compiler holding the 2020-12 meta-schema; draft-07
// is built into the library.
func meta() (*jsonschema.Compiler, error) {
	metaOnce.Do(func() {
		c := offlineCompiler()
		for _, f := range metaFiles {
			data, err := metaFS.ReadFile("metaschema/draft2020-12/" + f)
			if err != nil {
				metaErr = err
				return
			}
			if _, err := c.Compile(data); err != nil {
				metaErr = fmt.Errorf("meta-schema %s: %w", f, err)
				return
			}
		}
		metaCompiler = c
	})
	return metaCompiler, metaErr
}

// metaValidate checks a schema document against the meta-schema its $schema
// names (2020-12 when absent).
func metaValidate(raw []byte) ([]Problem, error) {
	c, err := meta()
	if err != nil {
		return nil, err
	}
	res, err := c.ValidateSchema(raw)
	if err != nil {
		return nil, err
	}
	return problemsOf(res, true), nil
}

type compileError struct{ problems []Problem }

func (e *compileError) Error() string {
	parts := make([]string, len(e.problems))
	for i, p := range e.problems {
		parts[i] = p.Path + ": " + p.Message
	}
	return "invalid schema: " + strings.Join(parts, "; ")
}

// compile compiles an already checked schema document with an offline
// compiler and fails on any $ref that does not resolve.
func compile(raw []byte, w *walked) (*jsonschema.Schema, error) {
	s, err := offlineCompiler().Compile(raw)
	if err != nil {
		return nil, &compileError{compileProblems(err)}
	}
	unresolved := s.UnresolvedReferenceURIs()
	if len(unresolved) == 0 {
		return s, nil
	}
	var ps []Problem
	for _, ref := range unresolved {
		found := false
		for _, r := range w.refs {
			if r.ref == ref {
				ps = append(ps, Problem{Path: r.path, Message: unresolvedMessage(ref)})
				found = true
			}
		}
		if !found {
			ps = append(ps, Problem{Path: "/", Message: unresolvedMessage(ref)})
		}
	}
	sortProblems(ps)
	return nil, &compileError{dedupe(ps)}
}

// compileProblems maps a compile error to problems; bad regular expressions
// get their own path.
func compileProblems(err error) []Problem {
	var ps []Problem
	var visit func(error)
	visit = func(e error) {
		var re *jsonschema.RegexPatternError
		switch {
		case errors.As(e, &re) && re.Location != "":
			ps = append(ps, Problem{Path: strings.TrimPrefix(re.Location, "#"), Message: fmt.Sprintf("invalid regular expression %q: %v", re.Pattern, re.Err)})
		default:
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				for _, sub := range j.Unwrap() {
					visit(sub)
				}
				return
			}
			if u := errors.Unwrap(e); u != nil && u != e {
				visit(u)
				return
			}
			ps = append(ps, Problem{Path: "/", Message: "schema does not compile: " + err.Error()})
		}
	}
	visit(err)
	sortProblems(ps)
	return dedupe(ps)
}

func unresolvedMessage(ref string) string {
	return fmt.Sprintf("$ref %q does not resolve: nothing at that location in this schema (definitions belong under \"$defs\", referenced as \"#/$defs/name\")", ref)
}

// Compiled is a compiled schema ready to validate many values. It is safe for
// concurrent use.
type Compiled struct {
	schema *jsonschema.Schema
}

// Compile checks rf (see Check) and compiles its schema. Any error of Check
// makes Compile fail; warnings do not.
func Compile(rf ResponseFormat) (*Compiled, error) {
	rep := Check(rf)
	if !rep.Valid {
		return nil, &compileError{rep.Errors}
	}
	raw := bytes.TrimSpace(rf.JSONSchema.Schema)
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	s, err := compile(raw, walk(doc))
	if err != nil {
		return nil, err
	}
	return &Compiled{schema: s}, nil
}

// Validate checks data against the schema. It returns nil when data is valid,
// otherwise problems at instance paths (e.g. "/line_items/0/amount":
// "expected number, got string"), sorted by path then message.
func (c *Compiled) Validate(data json.RawMessage) []Problem {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		msg := "invalid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return []Problem{{Path: "/", Message: msg}}
	}
	res := c.schema.ValidateJSON(data)
	if res.IsValid() {
		return nil
	}
	ps := problemsOf(res, false)
	if len(ps) == 0 { // never expected; keep the answer honest
		ps = []Problem{{Path: "/", Message: "value does not match the schema"}}
	}
	return ps
}

// ---- turning the library's result tree into problems ----

type problem struct {
	Problem
	code string
}

// wrapperKeywords only summarise failures of subschemas; when those are
// present, the subschema errors are reported instead.
var wrapperKeywords = map[string]bool{
	"$ref": true, "$dynamicRef": true, "allOf": true, "properties": true, "additionalProperties": true,
	"patternProperties": true, "items": true, "prefixItems": true, "dependentSchemas": true,
	"propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"then": true, "else": true, "contentSchema": true,
}

// skippedDetail reports subresults whose failure is not a failure of the
// parent by itself (anyOf/oneOf branches are handled with their keyword; a
// failing "if", "not" or "contains" subschema is normal).
func skippedDetail(evalPath string) bool {
	for _, p := range []string{"/anyOf/", "/oneOf/", "/if", "/not", "/contains"} {
		if strings.HasPrefix(evalPath, p) {
			return true
		}
	}
	return false
}

func problemsOf(res *jsonschema.EvaluationResult, metaMode bool) []Problem {
	var raw []problem
	collect(res, "", metaMode, &raw)
	ps := make([]Problem, len(raw))
	for i, p := range raw {
		ps[i] = p.Problem
	}
	sortProblems(ps)
	return dedupe(ps)
}

func collect(r *jsonschema.EvaluationResult, base string, metaMode bool, out *[]problem) {
	if r == nil || r.Valid {
		return
	}
	path := base + r.InstanceLocation

	// The library evaluates a missing required property as null; the
	// "required" error already says it is missing, so drop that echo.
	missing := missingRequired(r)
	skip := func(d *jsonschema.EvaluationResult) bool {
		if skippedDetail(d.EvaluationPath) {
			return true
		}
		name, ok := strings.CutPrefix(d.EvaluationPath, "/properties/")
		return ok && missing[name]
	}

	failingChildren := false
	for _, d := range r.Details {
		if !d.Valid && !skippedDetail(d.EvaluationPath) { // missing-required echoes count here
			failingChildren = true
			break
		}
	}

	for _, key := range sortedKeys(r.Errors) {
		e := r.Errors[key]
		switch {
		case key == "anyOf" || (key == "oneOf" && e.Code == "one_of_item_mismatch"):
			*out = append(*out, branchProblems(r, key, e, path, metaMode)...)
		case key == "additionalProperties" && e.Code == "additional_property_false":
			*out = append(*out, leaf(path, r.EvaluationPath, e, metaMode))
		case wrapperKeywords[key] && failingChildren:
			// reported by the children
		default:
			*out = append(*out, leaf(path, r.EvaluationPath, e, metaMode))
		}
	}
	for _, d := range r.Details {
		if !skip(d) {
			collect(d, path, metaMode, out)
		}
	}
}

// branchProblems explains a failed anyOf/oneOf. Branches that failed only
// because the value has another type are set aside; of the rest the branch
// with the fewest problems is reported. When every branch failed on type, one
// problem lists the accepted types.
func branchProblems(r *jsonschema.EvaluationResult, key string, e *jsonschema.EvaluationError, path string, metaMode bool) []problem {
	var best []problem
	var expected []string
	received := ""
	for _, d := range r.Details {
		if !strings.HasPrefix(d.EvaluationPath, "/"+key+"/") || d.Valid {
			continue
		}
		var ps []problem
		collect(d, path, metaMode, &ps)
		typeOnly := false
		for _, p := range ps {
			if p.code == "type_mismatch" && p.Path == displayPath(path+d.InstanceLocation) {
				typeOnly = true
				if te, ok := d.Errors["type"]; ok {
					expected = append(expected, fmt.Sprint(te.Params["expected"]))
					received = fmt.Sprint(te.Params["received"])
				}
			}
		}
		if typeOnly || len(ps) == 0 {
			continue
		}
		if best == nil || len(ps) < len(best) {
			best = ps
		}
	}
	if best != nil {
		return best
	}
	if len(expected) > 0 {
		return []problem{{Problem{Path: displayPath(path), Message: fmt.Sprintf("expected %s, got %s", orList(strings.Join(expected, ", ")), received)}, "type_mismatch"}}
	}
	return []problem{leaf(path, r.EvaluationPath, e, metaMode)}
}

// missingRequired returns the property names a "required" error of r names.
func missingRequired(r *jsonschema.EvaluationResult) map[string]bool {
	e, ok := r.Errors["required"]
	if !ok {
		return nil
	}
	list := fmt.Sprint(e.Params["property"])
	if e.Code == "missing_required_properties" {
		list = fmt.Sprint(e.Params["properties"])
	}
	names := map[string]bool{}
	for _, q := range strings.Split(list, "', '") {
		names[strings.Trim(q, "'")] = true
	}
	return names
}

func leaf(path, evalPath string, e *jsonschema.EvaluationError, metaMode bool) problem {
	p := displayPath(path)
	msg := e.Error()
	switch e.Code {
	case "type_mismatch":
		msg = fmt.Sprintf("expected %s, got %v", orList(fmt.Sprint(e.Params["expected"])), e.Params["received"])
	case "value_not_in_enum":
		if metaMode && strings.HasSuffix(p, "/type") {
			got, _ := json.Marshal(e.Params["received"])
			msg = fmt.Sprintf("%s is not a valid type (one of %v)", got, e.Params["expected"])
		}
	case "false_schema_mismatch":
		if name, ok := strings.CutPrefix(evalPath, "/additionalProperties/"); ok {
			msg = fmt.Sprintf("property %q is not allowed (additionalProperties is false)", name)
		}
	case "additional_property_false":
		msg = fmt.Sprintf("property %q is not allowed (additionalProperties is false)", fmt.Sprint(e.Params["property"]))
	}
	return problem{Problem{Path: p, Message: msg}, e.Code}
}

func displayPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// orList turns "string, null" into "string or null".
func orList(s string) string {
	parts := strings.Split(s, ", ")
	sort.Strings(parts)
	parts = compactStrings(parts)
	if len(parts) < 2 {
		return s
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Errors returns the problems of a failed Compile, or nil.
func Errors(err error) []Problem {
	var ce *compileError
	if errors.As(err, &ce) {
		return ce.problems
	}
	return nil
}
