package e2e

// Helpers of TestBrowserUI (ui_test.go): light and dark colour schemes, the
// page audit (a screenshot and an axe run in each scheme), raw ids in the
// visible text, an element inside the window, and a click that waits for
// its target to stand still.

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// colorScheme makes the page see prefers-color-scheme as scheme ("light"
// or "dark"), as a system in that mode would.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// clearViewport ends EmulateViewport: the window is the browser's own again.
func clearViewport() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		return err
	})
}

// schemes are the colour schemes every page is checked in.
var schemes = []string{"light", "dark"}

// auditPage screenshots the page as it is in light and in dark, and runs
// axe in each (as a subtest of its own, which skips without axe-core),
// leaving the page light. ready, run after each switch, waits for what
// the page must show.
func auditPage(t *testing.T, ctx context.Context, srv *serveProcess, shots *shooter, name string, ready func(t *testing.T)) {
	t.Helper()
	defer func() {
		// Back to light whatever happened, for the next step.
		_, _ = chromedp.Run(ctx, colorScheme("light"))
	}()
	for _, scheme := range schemes {
		do(t, ctx, srv, "switch to "+scheme, colorScheme(scheme))
		waitFor(t, ctx, srv, "the page in "+scheme, chromedp.Evaluate[bool](fmt.Sprintf(`matchMedia('(prefers-color-scheme: %s)').matches`, scheme)),
			func(ok bool) bool { return ok }, func(bool) string { return "the page does not see prefers-color-scheme: " + scheme })
		if ready != nil {
			ready(t)
		}
		shots.shot(ctx, name+"-"+scheme)
		t.Run("axe-"+name+"-"+scheme, func(t *testing.T) { checkAxe(t, ctx, srv, name+" ("+scheme+")") })
	}
}

// rawIDPattern is an id as the store writes it: a prefix and a ULID.
const rawIDPattern = `\b(prv|prm|sch|srv|ext|doc|thr)_[0-9A-Z]{10,}`

// rawIDsIn returns the raw ids in the visible text (innerText, so no
// attribute such as a title counts) of the elements sel matches.
func rawIDsIn(t *testing.T, ctx context.Context, srv *serveProcess, sel string) (ids []string, text string) {
	t.Helper()
	type found struct {
		IDs  []string
		Text string
	}
	js := fmt.Sprintf(`(() => {
		const text = [...document.querySelectorAll(%q)].map(e => e.innerText).join('\n');
		return {IDs: text.match(/%s/g) || [], Text: text};
	})()`, sel, rawIDPattern)
	f := get(t, ctx, srv, "read the text of "+sel, chromedp.Evaluate[found](js))
	return f.IDs, f.Text
}

// inViewport is a script that tells where an element is against the
// window: "" when it is wholly inside and is what a click at its centre
// reaches, else what is wrong.
const inViewportJS = `((sel) => {
	const e = document.querySelector(sel);
	if (!e) return 'missing';
	const r = e.getBoundingClientRect();
	const where = 'top ' + Math.round(r.top) + ', bottom ' + Math.round(r.bottom) + ', left ' + Math.round(r.left) + ', right ' + Math.round(r.right) +
		' in a window of ' + innerWidth + '×' + innerHeight;
	if (r.width === 0 || r.height === 0) return 'not laid out (' + where + ')';
	if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return 'outside the window: ' + where;
	const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
	if (!hit || !(hit === e || e.contains(hit))) return 'covered by ' + (hit ? hit.outerHTML.slice(0, 160) : 'nothing') + ' (' + where + ')';
	return '';
})`

// waitInViewport waits until the element sel selects is inside the window
// and not covered.
func waitInViewport(t *testing.T, ctx context.Context, srv *serveProcess, step, sel string) {
	t.Helper()
	waitFor(t, ctx, srv, step, chromedp.Evaluate[string](fmt.Sprintf("%s(%q)", inViewportJS, sel)),
		func(got string) bool { return got == "" },
		func(got string) string { return fmt.Sprintf("%s is %s", sel, got) })
}

// clickStill clicks the element sel selects once its place in the window
// has stopped moving: the conversation scrolls to what arrives, and a click
// aimed while it moves lands on whatever took the element's place.
func clickStill(t *testing.T, ctx context.Context, srv *serveProcess, step, sel string) {
	t.Helper()
	last := ""
	js := fmt.Sprintf(`(() => {
		const e = document.querySelector(%q);
		if (!e) return '';
		const r = e.getBoundingClientRect();
		return [r.left, r.top, r.width, r.height].join(',');
	})()`, sel)
	waitFor(t, ctx, srv, step+": wait until it stands still", chromedp.Evaluate[string](js),
		func(got string) bool { still := got != "" && got == last; last = got; return still },
		func(got string) string { return fmt.Sprintf("%s is at %q, still moving or missing", sel, got) })
	do(t, ctx, srv, step, chromedp.Click(chromedp.CSS(sel)))
}
