package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/docent/docent/app/internal/artifacts"
)

// BenchmarkUIFirstLoad measures what a browser does on opening Docent: the
// bytes of the UI's first load (index.html's script, preloads and styles,
// gzip-compressed; pdf.js and the other pages load later, on demand), and
// the time from navigation to the documents page being usable, with the
// browser's cache off, against `docent --serve` on loopback.
func BenchmarkUIFirstLoad(b *testing.B) {
	initial, total := bundleSizes(b)
	srv := startServe(b, b.TempDir())
	ctx := newBrowser(b)
	noCache := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true})
		return err
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")), noCache); err != nil {
		b.Fatal(err)
	}
	var ms float64
	b.ResetTimer()
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(tid("auto-create"))); err != nil {
			b.Fatal(err)
		}
		now, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.now()`))
		if err != nil {
			b.Fatal(err)
		}
		ms += now
	}
	b.ReportMetric(ms/float64(b.N), "ms/usable")
	b.ReportMetric(float64(initial)/1024, "initial-gzip-KiB")
	b.ReportMetric(float64(total)/1024, "all-gzip-KiB")
}

var assetRef = regexp.MustCompile(`(?:src|href)="\./(assets/[^"]+)"`)

// bundleSizes gzips the built UI: the files index.html loads at once, and
// every file of dist/assets.
func bundleSizes(b *testing.B) (initial, total int) {
	dist := filepath.Join(artifacts.RepoRoot(), "frontend", "dist")
	index, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		b.Fatalf("read the built UI (run npm run build in frontend/): %v", err)
	}
	initial = gzipSize(b, index)
	for _, m := range assetRef.FindAllSubmatch(index, -1) {
		initial += gzipFile(b, filepath.Join(dist, string(m[1])))
	}
	files, err := filepath.Glob(filepath.Join(dist, "assets", "*"))
	if err != nil {
		b.Fatal(err)
	}
	total = gzipSize(b, index)
	for _, f := range files {
		total += gzipFile(b, f)
	}
	return initial, total
}

func gzipFile(b *testing.B, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return gzipSize(b, data)
}

func gzipSize(b *testing.B, data []byte) int {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Len()
}
