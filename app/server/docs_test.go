package server_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// documentedRoute is a row of one of docs/protocol.md's route tables:
// "| `METHOD /api/...` | request | answer |" (or /mcp).
var documentedRoute = regexp.MustCompile("(?m)^\\| `((?:GET|HEAD|POST|PUT|PATCH|DELETE) /(?:api/[^`]*|mcp))` \\|")

// Every route the server registers has its row in docs/protocol.md, and
// every row there names a route the server registers: the contract in the
// repository is the API as it is.
func TestEveryRouteIsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatalf("read docs/protocol.md: %v", err)
	}
	documented := map[string]int{}
	for _, m := range documentedRoute.FindAllStringSubmatch(string(data), -1) {
		documented[m[1]]++
	}
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	routes := server.New(server.Config{DB: db}).Routes()
	if len(routes) < 60 {
		t.Fatalf("the server registers %d routes; is Routes() the whole table?", len(routes))
	}
	for _, r := range routes {
		switch documented[r] {
		case 0:
			t.Errorf("%s is registered but docs/protocol.md has no row \"| `%s` |\"", r, r)
		case 1:
		default:
			t.Errorf("docs/protocol.md documents %s %d times", r, documented[r])
		}
	}
	for d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("docs/protocol.md documents %s, which the server does not register", d)
		}
	}
}
