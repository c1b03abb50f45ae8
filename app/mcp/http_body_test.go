package mcp_test

import (
	"strings"
	"testing"

	docentmcp "github.com/docent/docent/app/mcp"
)

// TestLeadingID: the answer to a body over the cap carries the request's
// id when the part read holds it, and null (no guess) when it does not.
func TestLeadingID(t *testing.T) {
	big := strings.Repeat("x", 1000)
	for _, c := range []struct {
		prefix, want string
	}{
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{"a":"` + big, `9`},
		{`{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"a":"` + big, `"call-7"`},
		{` {"method":"tools/call","jsonrpc":"2.0","id":-3,"params":{"a":"` + big, `-3`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"a":"` + big, ``},         // the id is after the cut
		{`{"jsonrpc":"2.0","params":{"a":"x"},"id":{"no":"object"},"x":"` + big, ``}, // not an id
		{`[{"jsonrpc":"2.0","id":1`, ``},                                             // a batch
		{`{"jsonrpc":"2.0","id":12`, ``},                                             // the id itself cut
		{``, ``},
	} {
		if got := string(docentmcp.LeadingID([]byte(c.prefix))); got != c.want {
			t.Errorf("leadingID(%.60q) = %q, want %q", c.prefix, got, c.want)
		}
	}
}
