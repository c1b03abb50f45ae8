package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
)

// BenchmarkAutoCreateThroughput runs `docent auto-create` over a batch of
// text invoices against the scripted model with a fixed latency per reply
// (three replies per document: the round that creates schema, prompt and
// extraction, the extraction itself, the closing round) and reports
// documents per minute beside the ideal, concurrency × 60 s / one
// document's model time, and their ratio.
//
//	go test -run '^$' -bench AutoCreateThroughput -benchtime 3x ./app/
func BenchmarkAutoCreateThroughput(b *testing.B) {
	const docs = 16
	const latency = 50 * time.Millisecond
	const perDoc = 3 * latency
	srv := modeltest.New(b)
	b.Setenv("OLLAMA_HOST", srv.OllamaURL())
	b.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	srv.Handle(autoCreateModel(latency))
	for _, c := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				data := b.TempDir()
				dir := benchInvoices(b, docs)
				if code, _, errOut := runDocent(data, "import", dir); code != ExitOK {
					b.Fatal(errOut)
				}
				b.StartTimer()
				start := time.Now()
				if code, out, errOut := runDocent(data, "auto-create", "--all", "--concurrency", fmt.Sprint(c)); code != ExitOK {
					b.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
				total += time.Since(start)
			}
			perMin := float64(docs*b.N) / total.Minutes()
			ideal := float64(c) * float64(time.Minute) / float64(perDoc)
			b.ReportMetric(perMin, "docs/min")
			b.ReportMetric(ideal, "ideal-docs/min")
			b.ReportMetric(perMin/ideal, "efficiency")
		})
	}
}

func benchInvoices(b *testing.B, n int) string {
	dir := b.TempDir()
	for i := range n {
		writeBenchFile(b, dir, i)
	}
	return dir
}

func writeBenchFile(b *testing.B, dir string, i int) {
	b.Helper()
	text := fmt.Sprintf("ACME GmbH\nInvoice %03d\nTotal due: %d.00 EUR\n", i+1, 100+i)
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("invoice-%03d.txt", i+1)), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}

// runDocent runs the command line in-process with its own streams.
func runDocent(data string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}
	code := Run(context.Background(), append([]string{"--data-dir", data}, args...), ios)
	return code, out.String(), errOut.String()
}
