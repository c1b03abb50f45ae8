package schema

import (
	"fmt"
	"sort"
	"strings"
)

// refAt is one $ref or $dynamicRef in a schema document.
type refAt struct {
	path string // pointer to the $ref member, e.g. "/properties/a/$ref"
	ref  string
}

// walked is what a schema-aware walk over the decoded document finds.
type walked struct {
	refs   []refAt
	strict []Problem // strict-mode warnings
}

var (
	schemaMapKeys    = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaArrayKeys  = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaSingleKeys = []string{"not", "if", "then", "else", "additionalProperties", "contains", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"}
)

// walk visits every subschema in schema positions only, so that values of
// enum, const, default or examples are never mistaken for schemas.
func walk(doc map[string]any) *walked {
	w := &walked{}
	w.visit(doc, "")
	return w
}

func (w *walked) visit(s map[string]any, path string) {
	for _, k := range []string{"$ref", "$dynamicRef"} {
		if r, ok := s[k].(string); ok {
			w.refs = append(w.refs, refAt{path: path + "/" + k, ref: r})
		}
	}
	w.strictCheck(s, path)

	for _, k := range schemaMapKeys {
		if m, ok := s[k].(map[string]any); ok {
			for _, name := range sortedKeys(m) {
				if sub, ok := m[name].(map[string]any); ok {
					w.visit(sub, path+"/"+k+"/"+escape(name))
				}
			}
		}
	}
	for _, k := range schemaArrayKeys {
		if a, ok := s[k].([]any); ok {
			w.visitArray(a, path+"/"+k)
		}
	}
	for _, k := range schemaSingleKeys {
		if sub, ok := s[k].(map[string]any); ok {
			w.visit(sub, path+"/"+k)
		}
	}
	switch items := s["items"].(type) {
	case map[string]any:
		w.visit(items, path+"/items")
	case []any: // draft-07 tuple form
		w.visitArray(items, path+"/items")
	}
	if deps, ok := s["dependencies"].(map[string]any); ok {
		for _, name := range sortedKeys(deps) {
			if sub, ok := deps[name].(map[string]any); ok {
				w.visit(sub, path+"/dependencies/"+escape(name))
			}
		}
	}
}

func (w *walked) visitArray(a []any, path string) {
	for i, v := range a {
		if sub, ok := v.(map[string]any); ok {
			w.visit(sub, fmt.Sprintf("%s/%d", path, i))
		}
	}
}

// strictCheck warns when an object schema breaks OpenAI strict mode: every
// property must be listed in required and additionalProperties must be false.
func (w *walked) strictCheck(s map[string]any, path string) {
	if !isObjectSchema(s) {
		return
	}
	at := path
	if at == "" {
		at = "/"
	}
	if ap, ok := s["additionalProperties"].(bool); !ok || ap {
		w.strict = append(w.strict, Problem{Path: at, Message: "strict mode: an object must have \"additionalProperties\": false"})
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	var missing []string
	for _, name := range sortedKeys(props) {
		if !required[name] {
			missing = append(missing, fmt.Sprintf("%q", name))
		}
	}
	if len(missing) > 0 {
		w.strict = append(w.strict, Problem{Path: at, Message: "strict mode: every property must be listed in \"required\" (use \"type\": [\"...\", \"null\"] for optional values); missing: " + strings.Join(missing, ", ")})
	}
}

func isObjectSchema(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
		return false
	case nil:
		_, hasProps := s["properties"].(map[string]any)
		return hasProps
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// escape encodes a JSON pointer segment.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
