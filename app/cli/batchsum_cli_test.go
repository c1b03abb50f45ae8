package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// callsLine is the line a batch command ends with on stderr for calls
// scripted calls of 1,000 input and 100 output tokens on a local model.
func callsLine(calls int) string {
	return fmt.Sprintf("model calls: %d calls, %.1f k tokens (%s in, %s out), $0.00",
		calls, float64(calls*1100)/1000, thousands(calls*1000), thousands(calls*100))
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// `docent auto-create` and `docent extract` end with one line summing the
// model calls they made, and only those: the calls of an earlier command
// on the same data directory are not in it.
func TestBatchCommandsSumTheirModelCalls(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(reporting(autoCreateModel(0)))
	data := t.TempDir()

	code, _, errOut := docent(t, data, "auto-create", "--concurrency", "2", textInvoices(t, 3))
	if code != ExitOK {
		t.Fatalf("auto-create: exit %d\n%s", code, errOut)
	}
	byAutoCreate := len(srv.Requests())
	if want := callsLine(byAutoCreate); !strings.Contains(errOut, want) {
		t.Errorf("auto-create stderr lacks %q:\n%s", want, errOut)
	}

	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDocent(t, data, "schemas", "create", "--name", "invoice", "--file", schemaFile)
	mustDocent(t, data, "prompts", "create", "--name", "p", "--schema", "invoice", "--content", "Extract the invoice number and the total.")
	code, stdout, errOut := docent(t, data, "extract", "--prompt", "p", "--json", "invoice-001.txt", "invoice-002.txt")
	if code != ExitOK {
		t.Fatalf("extract: exit %d\n%s", code, errOut)
	}
	if want := callsLine(2); !strings.Contains(errOut, want) || len(srv.Requests()) != byAutoCreate+2 {
		t.Errorf("extract made %d calls; stderr lacks %q:\n%s", len(srv.Requests())-byAutoCreate, want, errOut)
	}
	var report struct {
		Usage *batchUsage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("extract --json: %v\n%s", err, stdout)
	}
	if u := report.Usage; u == nil || *u != (batchUsage{Calls: 2, InputTokens: 2000, OutputTokens: 200, CostUSD: 0, UnpricedCalls: 0}) {
		t.Errorf("extract --json usage = %+v, want 2 calls, 2,000 in, 200 out, $0", u)
	}

	before := len(srv.Requests())
	code, stdout, errOut = docent(t, data, "auto-create", "--json", textInvoices(t, 4))
	if code != ExitOK {
		t.Fatalf("auto-create --json: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var summary struct {
		Type  string      `json:"type"`
		Usage *batchUsage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil || summary.Type != "auto_create_summary" {
		t.Fatalf("auto-create --json last line: %v\n%s", err, lines[len(lines)-1])
	}
	// The folder's invoices 1 to 3 are already there and proposed: only
	// the new one made calls.
	calls := int64(len(srv.Requests()) - before)
	if u := summary.Usage; calls == 0 || u == nil || *u != (batchUsage{Calls: calls, InputTokens: 1000 * calls, OutputTokens: 100 * calls}) {
		t.Errorf("auto_create_summary usage = %+v; the server answered %d calls of 1,000/100 tokens", u, calls)
	}
}

// The line says one call in the singular, and never makes up a cost for
// calls whose price is unknown.
func TestBatchUsageLine(t *testing.T) {
	for _, c := range []struct {
		u    batchUsage
		want string
	}{
		{batchUsage{Calls: 1, InputTokens: 900, OutputTokens: 50, CostUSD: 0.001}, "model calls: 1 call, 950 tokens (900 in, 50 out), $0.001"},
		{batchUsage{Calls: 412, InputTokens: 1_700_000, OutputTokens: 200_000, CostUSD: 0.84}, "model calls: 412 calls, 1.9 M tokens (1,700,000 in, 200,000 out), $0.84"},
		{batchUsage{Calls: 2, InputTokens: 999_000, OutputTokens: 960}, "model calls: 2 calls, 1.0 M tokens (999,000 in, 960 out), $0.00"},
		{batchUsage{Calls: 3, InputTokens: 12_000, OutputTokens: 300, UnpricedCalls: 3}, "model calls: 3 calls, 12.3 k tokens (12,000 in, 300 out), price unknown"},
		{batchUsage{Calls: 5, InputTokens: 5000, OutputTokens: 500, CostUSD: 0.5, UnpricedCalls: 2}, "model calls: 5 calls, 5.5 k tokens (5,000 in, 500 out), $0.50 + 2 calls of unknown price"},
	} {
		if got := c.u.String(); got != c.want {
			t.Errorf("%d calls: %q, want %q", c.u.Calls, got, c.want)
		}
	}
}
