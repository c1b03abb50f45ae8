package e2e

// axe-core's accessibility audit for the browser tests: axe.min.js from
// the web UI's node_modules (a devDependency), injected into the page, and
// its serious and critical violations reported with their rule, elements
// and help.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/app/internal/artifacts"
)

// axePath is where npm puts axe-core, a devDependency of the web UI.
var axePath = filepath.Join(artifacts.RepoRoot(), "frontend", "node_modules", "axe-core", "axe.min.js")

var (
	axeOnce sync.Once
	axeJS   string
	axeErr  error
)

// axeSource is axe.min.js; a test without it skips (fails when CI=true).
func axeSource(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() {
		b, err := os.ReadFile(axePath)
		axeJS, axeErr = string(b), err
	})
	if axeErr != nil {
		msg := fmt.Sprintf("axe-core is not installed (%v): run `npm ci` in frontend/ (axe-core is a devDependency)", axeErr)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return axeJS
}

// axeViolation is one rule axe found broken, with the elements that break it.
type axeViolation struct {
	ID, Impact, Help, HelpURL string
	Nodes                     []struct {
		Target  string
		Summary string
	}
}

// axeRun audits the document as it is now and returns the violations of
// impact serious or critical.
const axeRun = `(async () => {
	const r = await axe.run(document, {resultTypes: ['violations']});
	return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
		ID: v.id, Impact: v.impact, Help: v.help, HelpURL: v.helpUrl,
		Nodes: v.nodes.map(n => ({
			Target: n.target.map(x => Array.isArray(x) ? x.join(' >>> ') : String(x)).join(', '),
			Summary: (n.failureSummary || '').replace(/\s+/g, ' ').trim(),
		})),
	}));
})()`

// checkAxe runs axe on the page and fails t with each serious or critical
// violation: its rule, impact, the elements (CSS selectors) and the help.
// It injects axe first when the page has none (a reload loses it; the
// app's hash routes keep it).
func checkAxe(t *testing.T, ctx context.Context, srv *serveProcess, page string) {
	t.Helper()
	src := axeSource(t)
	has := get(t, ctx, srv, "is axe loaded", chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if !has {
		do(t, ctx, srv, "inject axe-core", chromedp.Evaluate[chromedp.Void](src))
	}
	vs := get(t, ctx, srv, "run axe on "+page, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
	if len(vs) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "axe-core: %d serious or critical violations on %s:", len(vs), page)
	for _, v := range vs {
		fmt.Fprintf(&b, "\n- %s (%s): %s\n  %s", v.ID, v.Impact, v.Help, v.HelpURL)
		for i, n := range v.Nodes {
			if i == 8 {
				fmt.Fprintf(&b, "\n  … and %d more elements", len(v.Nodes)-i)
				break
			}
			fmt.Fprintf(&b, "\n  * %s\n    %s", n.Target, clip(n.Summary, 400))
		}
	}
	t.Error(b.String())
}
