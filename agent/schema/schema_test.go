package schema

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

const invoiceSchema = `{
  "type": "object",
  "properties": {
    "invoice_number": {"type": "string"},
    "date": {"type": ["string", "null"], "description": "ISO date"},
    "vendor": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "vat_id": {"type": ["string", "null"]}
      },
      "required": ["name", "vat_id"],
      "additionalProperties": false
    },
    "line_items": {
      "type": "array",
      "items": {"$ref": "#/$defs/line_item"}
    },
    "currency": {"type": "string", "enum": ["EUR", "USD"]},
    "total": {"type": "number"}
  },
  "required": ["invoice_number", "date", "vendor", "line_items", "currency", "total"],
  "additionalProperties": false,
  "$defs": {
    "line_item": {
      "type": "object",
      "properties": {
        "description": {"type": "string"},
        "quantity": {"type": ["integer", "null"]},
        "amount": {"type": "number"}
      },
      "required": ["description", "quantity", "amount"],
      "additionalProperties": false
    }
  }
}`

// lax is the invoice schema without additionalProperties/required on some objects.
const laxSchema = `{
  "type": "object",
  "properties": {
    "invoice_number": {"type": "string"},
    "vendor": {
      "type": "object",
      "properties": {"name": {"type": "string"}, "vat_id": {"type": ["string", "null"]}},
      "required": ["name"]
    },
    "line_items": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {"description": {"type": "string"}, "amount": {"type": "number"}},
        "additionalProperties": false
      }
    }
  },
  "required": ["invoice_number", "vendor", "line_items"]
}`

func rfJSON(schema string) string {
	return `{"type":"json_schema","json_schema":{"name":"invoice","strict":true,"schema":` + schema + `}}`
}

func mustNormalize(t *testing.T, raw, name string) ResponseFormat {
	t.Helper()
	rf, err := Normalize(json.RawMessage(raw), name)
	if err != nil {
		t.Fatalf("Normalize: %v", err)
	}
	return rf
}

func hasProblem(ps []Problem, path, substr string) bool {
	for _, p := range ps {
		if p.Path == path && strings.Contains(p.Message, substr) {
			return true
		}
	}
	return false
}

func TestNormalize(t *testing.T) {
	stringified, _ := json.Marshal(rfJSON(invoiceSchema))
	bareString, _ := json.Marshal(invoiceSchema)
	tests := []struct {
		name, raw, argName string
		wantName           string
		wantErr            string
	}{
		{name: "response_format", raw: rfJSON(invoiceSchema), argName: "ignored", wantName: "invoice"},
		{name: "bare schema", raw: invoiceSchema, argName: "Invoice v2 (EU)", wantName: "Invoice_v2_EU"},
		{name: "bare schema long name", raw: invoiceSchema, argName: strings.Repeat("x", 100), wantName: strings.Repeat("x", 64)},
		{name: "bare schema empty name", raw: invoiceSchema, argName: "  ", wantName: "schema"},
		{name: "JSON string of response_format", raw: string(stringified), wantName: "invoice"},
		{name: "JSON string of bare schema", raw: string(bareString), argName: "inv", wantName: "inv"},
		{name: "malformed JSON", raw: `{"type": "object",`, wantErr: "not valid JSON"},
		{name: "string with malformed JSON", raw: `"{\"type\": "`, wantErr: "not valid JSON"},
		{name: "array", raw: `[1,2]`, wantErr: "must be a JSON object"},
		{name: "empty", raw: ``, wantErr: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf, err := Normalize(json.RawMessage(tt.raw), tt.argName)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rf.Type != "json_schema" || rf.JSONSchema.Name != tt.wantName || !rf.JSONSchema.Strict {
				t.Fatalf("got type=%q name=%q strict=%v", rf.Type, rf.JSONSchema.Name, rf.JSONSchema.Strict)
			}
			var inner map[string]any
			if err := json.Unmarshal(rf.JSONSchema.Schema, &inner); err != nil || inner["type"] != "object" {
				t.Fatalf("inner schema = %s (%v)", rf.JSONSchema.Schema, err)
			}
			if rep := Check(rf); !rep.Valid || len(rep.Warnings) > 0 {
				t.Fatalf("Check: %+v", rep)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		raw         string // response_format or bare schema
		wantErrors  []Problem
		wantWarn    []Problem // each must be present (substring of message)
		exactWarn   int       // 0: don't care
		wantNoWarns bool
	}{
		{name: "good invoice", raw: rfJSON(invoiceSchema), wantNoWarns: true},
		{name: "good invoice bare", raw: invoiceSchema, wantNoWarns: true},
		{name: "good invoice draft-07", raw: rfJSON(strings.Replace(strings.ReplaceAll(invoiceSchema, "$defs", "definitions"), "{", `{"$schema":"http://json-schema.org/draft-07/schema#",`, 1)), wantNoWarns: true},
		{
			name: "lax invoice warns", raw: rfJSON(laxSchema),
			wantWarn: []Problem{
				{"/", "additionalProperties"},
				{"/properties/vendor", "additionalProperties"},
				{"/properties/vendor", `missing: "vat_id"`},
				{"/properties/line_items/items", `missing: "amount", "description"`},
			},
			exactWarn: 4,
		},
		{
			name: "bad type name", raw: rfJSON(`{"type":"object","properties":{"total":{"type":"strin"}},"required":["total"],"additionalProperties":false}`),
			wantErrors: []Problem{{"/properties/total/type", `"strin" is not a valid type (one of array, boolean, integer, null, number, object, string)`}},
		},
		{
			name: "missing local ref", raw: rfJSON(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"required":["a"],"additionalProperties":false}`),
			wantErrors: []Problem{{"/properties/a/$ref", `$ref "#/$defs/missing" does not resolve`}},
		},
		{
			name: "relative non-local ref", raw: rfJSON(`{"type":"object","properties":{"a":{"$ref":"other.json"}},"required":["a"],"additionalProperties":false}`),
			wantErrors: []Problem{{"/properties/a/$ref", `remote $ref not allowed: "other.json"`}},
		},
		{
			name: "array root", raw: rfJSON(`{"type":"array","items":{"type":"string"}}`),
			wantErrors: []Problem{{"/type", `root schema must have "type": "object"`}},
		},
		{
			name: "missing name", raw: `{"type":"json_schema","json_schema":{"strict":true,"schema":` + invoiceSchema + `}}`,
			wantErrors: []Problem{{"response_format.json_schema.name", "name is required"}},
		},
		{
			name: "bad name", raw: `{"type":"json_schema","json_schema":{"name":"my invoice","strict":true,"schema":` + invoiceSchema + `}}`,
			wantErrors: []Problem{{"response_format.json_schema.name", `use only letters`}},
		},
		{
			name: "type text", raw: `{"type":"text"}`,
			wantErrors: []Problem{
				{"response_format.json_schema.name", "name is required"},
				{"response_format.json_schema.schema", "schema is required"},
				{"response_format.type", `type must be "json_schema", got "text"`},
			},
		},
		{
			name: "schema not an object", raw: `{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":"{}"}}`,
			wantErrors: []Problem{{"response_format.json_schema.schema", "must be a JSON object, got a string"}},
		},
		{
			name: "schema array", raw: `{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":[1]}}`,
			wantErrors: []Problem{{"response_format.json_schema.schema", "must be a JSON object, got an array"}},
		},
		{
			name: "unsupported $schema", raw: rfJSON(`{"$schema":"https://example.com/meta","type":"object"}`),
			wantErrors: []Problem{{"/$schema", "unsupported $schema"}},
		},
		{
			name: "bad pattern", raw: rfJSON(`{"type":"object","properties":{"p":{"type":"string","pattern":"("}},"required":["p"],"additionalProperties":false}`),
			wantErrors: []Problem{{"/properties/p/pattern", `invalid regular expression "(": error parsing regexp: missing closing )`}},
		},
		{
			name: "bad patternProperties", raw: rfJSON(`{"type":"object","patternProperties":{"[":{}},"additionalProperties":false}`),
			wantErrors: []Problem{{"/patternProperties/[", `invalid regular expression "["`}},
		},
		{
			name: "draft-07 bad type", raw: rfJSON(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"numbr"}},"required":["n"],"additionalProperties":false}`),
			wantErrors: []Problem{{"/properties/n/type", `"numbr" is not a valid type`}},
		},
		{
			name: "strict false warns", raw: `{"type":"json_schema","json_schema":{"name":"x","strict":false,"schema":` + invoiceSchema + `}}`,
			wantWarn: []Problem{{"response_format.json_schema.strict", "strict should be true"}}, exactWarn: 1,
		},
		{
			name: "several errors at once", raw: rfJSON(`{"type":"object","properties":{"a":{"type":"number","minimum":"x"},"b":{"type":"array","items":{"type":"objec"}},"c":{"enum":[]},"d":{"anyOf":[{"type":"strin"},{"type":"null"}]}},"required":["a","b","c","d"],"additionalProperties":false}`),
			wantErrors: []Problem{
				{"/properties/a/minimum", "expected number, got string"},
				{"/properties/b/items/type", `"objec" is not a valid type`},
				{"/properties/d/anyOf/0/type", `"strin" is not a valid type`},
			},
		},
		{
			name: "properties and additionalProperties of the wrong type", raw: rfJSON(`{"type":"object","properties":[],"additionalProperties":"no"}`),
			wantErrors: []Problem{
				{"/additionalProperties", "expected boolean or object, got string"},
				{"/properties", "expected object, got array"},
			},
			wantWarn: []Problem{{"/", `an object must have "additionalProperties": false`}}, exactWarn: 1,
		},
		{
			name: "bad required", raw: rfJSON(`{"type":"object","properties":{"a":{"type":"string"}},"required":"a","additionalProperties":false}`),
			wantErrors: []Problem{{"/required", "expected array, got string"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf := mustNormalize(t, tt.raw, "x")
			rep := Check(rf)
			if rep.Valid != (len(tt.wantErrors) == 0) {
				t.Fatalf("valid = %v, report %+v", rep.Valid, rep)
			}
			if len(rep.Errors) != len(tt.wantErrors) {
				t.Fatalf("errors = %+v, want %+v", rep.Errors, tt.wantErrors)
			}
			for i, w := range tt.wantErrors {
				if rep.Errors[i].Path != w.Path || !strings.Contains(rep.Errors[i].Message, w.Message) {
					t.Errorf("error %d = %+v, want %+v", i, rep.Errors[i], w)
				}
			}
			if tt.wantNoWarns && len(rep.Warnings) > 0 {
				t.Errorf("warnings = %+v, want none", rep.Warnings)
			}
			for _, w := range tt.wantWarn {
				if !hasProblem(rep.Warnings, w.Path, w.Message) {
					t.Errorf("missing warning %+v in %+v", w, rep.Warnings)
				}
			}
			if tt.exactWarn > 0 && len(rep.Warnings) != tt.exactWarn {
				t.Errorf("warnings = %+v, want %d", rep.Warnings, tt.exactWarn)
			}
			if _, err := json.Marshal(rep); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCheckRemoteRefMakesNoRequest(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()

	// A closed port on 127.0.0.1 as well: take one and release it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/defs.json"
	l.Close()

	for _, ref := range []string{srv.URL + "/defs.json#/$defs/a", closed, strings.Replace(srv.URL, "http:", "https:", 1) + "/x.json"} {
		t.Run(ref, func(t *testing.T) {
			schemas := []string{
				`{"type":"object","properties":{"a":{"$ref":"` + ref + `"}},"required":["a"],"additionalProperties":false}`,
				`{"$schema":"` + srv.URL + `/meta","type":"object"}`,
				`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"` + ref + `"}},"required":["a"],"additionalProperties":false}`,
			}
			for i, s := range schemas {
				rf := mustNormalize(t, rfJSON(s), "x")
				rep := Check(rf)
				if rep.Valid {
					t.Fatalf("schema %d: valid, want error", i)
				}
				if i != 1 && !hasProblem(rep.Errors, "/properties/a/$ref", "remote $ref not allowed: ") {
					t.Errorf("schema %d: errors = %+v", i, rep.Errors)
				}
				if _, err := Compile(rf); err == nil {
					t.Errorf("schema %d: Compile succeeded", i)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("test server got %d requests, want 0", n)
	}
}

func TestOfflineCompilerHasNoLoaders(t *testing.T) {
	if n := len(offlineCompiler().Loaders); n != 0 {
		t.Fatalf("offline compiler has %d loaders", n)
	}
	c, err := meta()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Loaders) != 0 {
		t.Fatalf("meta compiler has loaders")
	}
}

func TestValidate(t *testing.T) {
	c, err := Compile(mustNormalize(t, invoiceSchema, "invoice"))
	if err != nil {
		t.Fatal(err)
	}
	good := `{"invoice_number":"A-1","date":null,"vendor":{"name":"ACME","vat_id":null},
	  "line_items":[{"description":"x","quantity":2,"amount":10.5},{"description":"y","quantity":null,"amount":3}],
	  "currency":"EUR","total":13.5}`
	tests := []struct {
		name string
		data string
		want []Problem
	}{
		{name: "valid", data: good},
		{
			name: "wrong type nested",
			data: strings.Replace(good, `"amount":3`, `"amount":"3"`, 1),
			want: []Problem{{"/line_items/1/amount", "expected number, got string"}},
		},
		{
			name: "nullable wrong type",
			data: strings.Replace(good, `"date":null`, `"date":5`, 1),
			want: []Problem{{"/date", "expected null or string, got integer"}},
		},
		{
			name: "missing required",
			data: strings.Replace(good, `"name":"ACME",`, ``, 1),
			want: []Problem{{"/vendor", "Required property 'name' is missing"}},
		},
		{
			name: "extra property",
			data: strings.Replace(good, `"total":13.5`, `"total":13.5,"notes":"hi"`, 1),
			want: []Problem{{"/notes", `property "notes" is not allowed (additionalProperties is false)`}},
		},
		{
			name: "extra property nested",
			data: strings.Replace(good, `"amount":10.5`, `"amount":10.5,"tax":1`, 1),
			want: []Problem{{"/line_items/0/tax", `property "tax" is not allowed (additionalProperties is false)`}},
		},
		{
			name: "enum",
			data: strings.Replace(good, `"EUR"`, `"GBP"`, 1),
			want: []Problem{{"/currency", "should be one of the allowed values: EUR, USD"}},
		},
		{
			name: "malformed JSON",
			data: `{"invoice_number":`,
			want: []Problem{{"/", "invalid JSON"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Validate(json.RawMessage(tt.data))
			if len(got) != len(tt.want) {
				t.Fatalf("problems = %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				if got[i].Path != w.Path || !strings.Contains(got[i].Message, w.Message) {
					t.Errorf("problem %d = %+v, want %+v", i, got[i], w)
				}
			}
		})
	}
}

func TestValidateDeterministic(t *testing.T) {
	c, err := Compile(mustNormalize(t, invoiceSchema, "invoice"))
	if err != nil {
		t.Fatal(err)
	}
	// Many problems at once, in many maps: order must never change.
	data := `{"invoice_number":1,"date":2,"vendor":{"vat_id":3,"x":1,"y":2},
	  "line_items":[{"description":1,"quantity":"a","amount":"b"},{"z":1},{},{},{},{},{},{},{},{},{"amount":"c"}],
	  "currency":"GBP","total":"t","extra1":1,"extra2":2}`
	first := c.Validate(json.RawMessage(data))
	if len(first) < 10 {
		t.Fatalf("expected many problems, got %+v", first)
	}
	// numeric path segments sort numerically: /line_items/2 before /line_items/10
	i2, i10 := -1, -1
	for i, p := range first {
		if strings.HasPrefix(p.Path, "/line_items/2") && i2 < 0 {
			i2 = i
		}
		if strings.HasPrefix(p.Path, "/line_items/10") && i10 < 0 {
			i10 = i
		}
	}
	if i2 < 0 || i10 < 0 || i2 > i10 {
		t.Errorf("numeric order wrong: %+v", first)
	}
	for range 50 {
		if got := c.Validate(json.RawMessage(data)); !reflect.DeepEqual(got, first) {
			t.Fatalf("order changed:\n%+v\n%+v", got, first)
		}
	}
	for range 20 {
		if got := Check(mustNormalize(t, laxSchema, "x")); !reflect.DeepEqual(got, Check(mustNormalize(t, laxSchema, "x"))) {
			t.Fatal("Check not deterministic")
		}
	}
}

func TestCompileRejectsInvalid(t *testing.T) {
	_, err := Compile(mustNormalize(t, `{"type":"object","properties":{"a":{"type":"strin"}}}`, "x"))
	if err == nil {
		t.Fatal("Compile succeeded")
	}
	ps := Errors(err)
	if len(ps) != 1 || ps[0].Path != "/properties/a/type" {
		t.Fatalf("problems = %+v (%v)", ps, err)
	}
	if !strings.Contains(err.Error(), `/properties/a/type: "strin" is not a valid type`) {
		t.Fatalf("error text = %v", err)
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Invoice":               "Invoice",
		"my invoice schema!":    "my_invoice_schema",
		"ünïcödé":               "n_c_d",
		"":                      "schema",
		"a-b_c":                 "a-b_c",
		"__x__":                 "x",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The pre-scan rejects remote refs before compiling; this checks the second
// line of defence on its own: the library's compilers have no URL loaders.
func TestLibraryNeverFetches(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()

	raw := []byte(`{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/a.json"}}}`)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	_, err := compile(raw, walk(doc))
	if ps := Errors(err); len(ps) != 1 || ps[0].Path != "/properties/a/$ref" {
		t.Fatalf("compile: %v", err)
	}
	if _, err := metaValidate([]byte(`{"$schema":"` + srv.URL + `/meta","type":"object"}`)); err == nil {
		t.Fatal("metaValidate with a remote $schema succeeded")
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("test server got %d requests, want 0", n)
	}
}

func TestConcurrent(t *testing.T) {
	c, err := Compile(mustNormalize(t, invoiceSchema, "invoice"))
	if err != nil {
		t.Fatal(err)
	}
	d7 := strings.Replace(laxSchema, "{", `{"$schema":"http://json-schema.org/draft-07/schema#",`, 1)
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 10 {
				s := laxSchema
				if i%2 == 1 {
					s = d7
				}
				if rep := Check(mustNormalize(t, s, "x")); !rep.Valid {
					t.Errorf("Check: %+v", rep)
				}
				if ps := c.Validate(json.RawMessage(`{"total":"x"}`)); len(ps) == 0 {
					t.Error("no problems")
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}
