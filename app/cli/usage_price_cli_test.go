package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// `docent usage limit --per-minute N` sets the server's per-minute limit
// with the others, keeps it when another limit is set, and --off removes
// it; a bad number is a usage error that changes nothing.
func TestUsageLimitPerMinute(t *testing.T) {
	data := t.TempDir()
	out := mustDocent(t, data, "usage", "limit", "--per-minute", "30")
	if !strings.Contains(out, "at most 30 model-calling requests a minute") {
		t.Errorf("usage limit --per-minute 30 says:\n%s", out)
	}
	mustDocent(t, data, "usage", "limit", "--daily", "1000")
	if st := usageJSON(t, data).Status; st.Limits.PerMinute != 30 || st.Limits.Daily == nil {
		t.Errorf("after --daily the limits are %+v, want the per-minute limit kept", st.Limits)
	}
	if code, _, errOut := docent(t, data, "usage", "limit", "--per-minute", "many"); code != ExitUsage || !strings.Contains(errOut, "--per-minute") {
		t.Errorf("--per-minute many: exit %d: %s", code, errOut)
	}
	mustDocent(t, data, "usage", "limit", "--off")
	if st := usageJSON(t, data).Status; st.Limits.PerMinute != 0 || st.Limits.Any() {
		t.Errorf("after --off the limits are %+v", st.Limits)
	}
}

// `docent usage price` lists the models' prices and where they come from;
// MODEL --input --output sets one by hand, which wins over the list's, and
// MODEL --off removes it; a bad price names the field and changes nothing.
func TestUsagePrice(t *testing.T) {
	data := t.TempDir()
	t.Setenv("DOCENT_MODEL", "openai/gpt-4o-mini")
	out := mustDocent(t, data, "usage", "price")
	if !strings.Contains(out, "openai/gpt-4o-mini") || !strings.Contains(out, "list") {
		t.Errorf("usage price lists:\n%s", out)
	}
	mustDocent(t, data, "usage", "price", "openai/mystery-1", "--input", "1.5", "--output", "6")
	out = mustDocent(t, data, "usage", "price")
	line := ""
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "openai/mystery-1") {
			line = strings.Join(strings.Fields(l), " ")
		}
	}
	if line != "openai/mystery-1 override $1.5 $6 $1.5" {
		t.Errorf("after the override mystery-1's line is %q:\n%s", line, out)
	}
	for _, bad := range [][]string{
		{"openai/x", "--input", "-1", "--output", "1"},
		{"openai/x", "--input", "1"},
		{"--input", "1", "--output", "1"},
		{"ollama/qwen3:8b", "--input", "1", "--output", "1"},
		{"openai/nothing", "--off"},
	} {
		code, _, errOut := docent(t, data, append([]string{"usage", "price"}, bad...)...)
		if code == ExitOK || errOut == "" {
			t.Errorf("usage price %v: exit %d: %s", bad, code, errOut)
		}
	}
	db := openData(t, data)
	o, err := db.PriceOverrides(t.Context())
	if err != nil || len(o) != 1 {
		t.Errorf("after the refused prices the overrides are %v (%v), want mystery-1's alone", o, err)
	}
	mustDocent(t, data, "usage", "price", "openai/mystery-1", "--off")
	if out := mustDocent(t, data, "usage", "price"); strings.Contains(out, "mystery-1") {
		t.Errorf("after --off:\n%s", out)
	}
}

// `docent auto-create` on a hosted model says what the batch is expected
// to cost before it starts, on stderr and with --json as the first line.
func TestAutoCreatePrintsEstimate(t *testing.T) {
	srv := modeltest.New(t, modeltest.Model{Name: "gpt-4o-mini", ContextLength: 128000, Capabilities: []string{"completion", "tools"}},
		modeltest.Model{Name: "mystery-1", ContextLength: 128000, Capabilities: []string{"completion", "tools"}})
	autoCreateEnv(t, srv)
	t.Setenv("DOCENT_MODEL", "openai/gpt-4o-mini")
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	dir := textInvoices(t, 3)
	code, out, errOut := docent(t, data, "auto-create", "--json", dir)
	if code != ExitOK {
		t.Fatalf("auto-create: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "estimated: 3 documents, about ") || !strings.Contains(errOut, "(gpt-4o-mini)") || strings.Contains(errOut, "price unknown") {
		t.Errorf("stderr does not give the estimate:\n%s", errOut)
	}
	first, _, _ := strings.Cut(out, "\n")
	var est struct {
		Type         string   `json:"type"`
		Documents    int      `json:"documents"`
		InputTokens  int      `json:"input_tokens"`
		OutputTokens int      `json:"output_tokens"`
		CostUSD      *float64 `json:"cost_usd"`
		Priced       bool     `json:"priced"`
		Model        string   `json:"model"`
	}
	if err := json.Unmarshal([]byte(first), &est); err != nil || est.Type != "auto_create_estimate" || est.Documents != 3 ||
		!est.Priced || est.CostUSD == nil || *est.CostUSD <= 0 || est.Model != "openai/gpt-4o-mini" || est.InputTokens <= 0 {
		t.Errorf("the first line is %s (%v)", first, err)
	}

	// A model without a price: said, never a figure.
	code, _, errOut = docent(t, t.TempDir(), "--model", "openai/mystery-1", "auto-create", textInvoices(t, 1))
	if !strings.Contains(errOut, "estimated: ") || !strings.Contains(errOut, "price unknown (mystery-1)") {
		t.Errorf("on a model of unknown price (exit %d):\n%s", code, errOut)
	}
}
