package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/app/server"
)

// Every route has the contract the web client's functions are generated
// from: a name of its own, and a body only where the method sends one.
// MCP's routes alone are of other clients. A route added without its
// contract fails here, before the client lacks a function for it.
func TestEveryRouteHasAContract(t *testing.T) {
	names := map[string]string{}
	for _, rt := range server.APIRoutes() {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		if rt.Form == server.External {
			if path != "/mcp" {
				t.Errorf("%s: only MCP's routes are of other clients", rt.Pattern)
			}
			continue
		}
		if rt.Name == "" {
			t.Errorf("%s: no contract (name, query, body and answer types)", rt.Pattern)
			continue
		}
		if prev, ok := names[rt.Name]; ok {
			t.Errorf("%s and %s are both %s", prev, rt.Pattern, rt.Name)
		}
		names[rt.Name] = rt.Pattern
		if rt.Body != nil && (method == http.MethodGet || method == http.MethodDelete) {
			t.Errorf("%s: a %s has no body, yet its contract gives %s", rt.Pattern, method, rt.Body)
		}
		if rt.Form == server.Call && method == http.MethodGet && rt.Answer == nil {
			t.Errorf("%s: a JSON GET without an answer type", rt.Pattern)
		}
	}
	if len(names) == 0 {
		t.Fatal("no routes")
	}
}
