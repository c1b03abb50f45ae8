package storage

import (
	"encoding/json"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func TestSetJSONPath(t *testing.T) {
	const doc = `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},` +
		`"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true}`
	tests := []struct {
		path, value string
		want        string
	}{
		{"total", `99.990`, `{"total":99.990,"vendor":{"name":"ACME <&>","vat":null},"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true}`},
		{"vendor.name", `"Acme & Co"`, `{"total":12345678901234567890.10,"vendor":{"name":"Acme & Co","vat":null},"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true}`},
		{"vendor.vat", `"FR12"`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":"FR12"},"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true}`},
		{"vendor.city", `"Paris"`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null,"city":"Paris"},"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true}`},
		{"line_items.0.amount", `2`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},"line_items":[{"amount":2,"sku":"a"},null,7],"tags":[],"paid":true}`},
		{"line_items.1", `{"amount":3}`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},"line_items":[{"amount":1.50,"sku":"a"},{"amount":3},7],"tags":[],"paid":true}`},
		{"line_items.2", `null`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},"line_items":[{"amount":1.50,"sku":"a"},null,null],"tags":[],"paid":true}`},
		{"line_items", `[]`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},"line_items":[],"tags":[],"paid":true}`},
		{"new key", `{"a":[1,2]}`, `{"total":12345678901234567890.10,"vendor":{"name":"ACME <&>","vat":null},"line_items":[{"amount":1.50,"sku":"a"},null,7],"tags":[],"paid":true,"new key":{"a":[1,2]}}`},
	}
	for _, tt := range tests {
		got, err := setJSONPath(json.RawMessage(doc), tt.path, json.RawMessage(tt.value))
		if err != nil {
			t.Errorf("set %s: %v", tt.path, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("set %s =\n%s\nwant\n%s", tt.path, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("set %s: result is not valid JSON", tt.path)
		}
	}

	errs := []struct{ doc, path, msg string }{
		{doc, "", "path is empty"},
		{doc, "  ", "path is empty"},
		{doc, "vendor..name", `path "vendor..name" has an empty segment`},
		{doc, "vendor.", `path "vendor." has an empty segment`},
		{doc, "vendor.vat.code", "vendor.vat: is null, cannot set code"},
		{doc, "line_items.1.amount", "line_items.1: is null, cannot set amount"},
		{doc, "line_items.2.amount", "line_items.2: is a number, cannot set amount"},
		{doc, "vendor.name.first", "vendor.name: is a string, cannot set first"},
		{doc, "paid.when", "paid: is a boolean, cannot set when"},
		{doc, "line_items.3", "line_items: index 3 is out of range (the array has 3 items)"},
		{doc, "line_items.3.amount", "line_items: index 3 is out of range (the array has 3 items)"},
		{doc, "tags.0", "tags: index 0 is out of range (the array has 0 items)"},
		{doc, "line_items.first", `line_items: is an array, "first" is not an index`},
		{doc, "line_items.-1", `line_items: is an array, "-1" is not an index`},
		{doc, "line_items.+1", `line_items: is an array, "+1" is not an index`},
		{doc, "line_items.99999999999999999999999", "line_items: is an array, \"99999999999999999999999\" is not an index"},
		{doc, "vendor.address.city", "vendor.address: does not exist, cannot set city (set vendor.address to an object or array first)"},
		{`null`, "a", "(root): is null, cannot set a"},
		{`[1]`, "a", `(root): is an array, "a" is not an index`},
		{`"text"`, "a", "(root): is a string, cannot set a"},
	}
	for _, tt := range errs {
		_, err := setJSONPath(json.RawMessage(tt.doc), tt.path, json.RawMessage(`1`))
		if fault.ErrorCode(err) != "invalid" || fault.ErrorMessage(err) != tt.msg {
			t.Errorf("set %q in %s: error %v (%s), want invalid %q", tt.path, tt.doc, err, fault.ErrorCode(err), tt.msg)
		}
	}
}

func TestSetJSONPathDuplicateKeysSetTheLastOne(t *testing.T) {
	// encoding/json reads the last of repeated keys, so that is the one set.
	got, err := setJSONPath(json.RawMessage(`{"a":1,"a":2}`), "a", json.RawMessage(`3`))
	if err != nil || string(got) != `{"a":1,"a":3}` {
		t.Errorf("got %s, %v", got, err)
	}
}
