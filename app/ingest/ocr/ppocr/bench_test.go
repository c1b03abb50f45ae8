package ppocr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// The figures of docs/benchmarks.md ("Receipts: PP-OCR on ONNX Runtime").
// Run with
//
//	go test -run '^$' -bench SROIE -benchtime 1x ./app/ingest/ocr/ppocr
//
// (DOCENT_BENCH_DROP=1 adds the confidence rule's variants, side by side.)
// PP-OCR runs in this process on one thread, so the process's own CPU
// time and peak resident memory are the engine's (with the decoding of
// the JPEGs and the test's own few MB).

func selfUsage() (cpu time.Duration, maxRSS int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Maxrss * 1024
}

// BenchmarkSROIE reads the 40 receipt photos and reports the share of the
// labelled company, date and total found in the text (whitespace and case
// ignored), the totals apart, CPU seconds per receipt and the peak RSS.
// It also counts each label found as printed: case ignored, its spaces and
// the text's made single, so a name read with its words glued together
// ("ACMEHARDWARE") is not found, nor a total with a space inside.
// DOCENT_BENCH_DROP=1 reads each receipt also with every line kept and
// with lines dropped below 0.3, side by side with DropScore, and logs
// each variant's figures (CPU time and peak are then the run's, all
// variants together).
func BenchmarkSROIE(b *testing.B) {
	e := openEngine(b)
	files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(b), "sroie", "*.jpg"))
	if len(files) == 0 {
		b.Fatal("no receipts in the corpus's sroie/")
	}
	drops := []float64{DropScore}
	if os.Getenv("DOCENT_BENCH_DROP") == "1" {
		drops = []float64{-1, 0.3, DropScore}
	}
	for range b.N {
		found := make([]int, len(drops))
		totals := make([]int, len(drops))
		printed := make([]map[string]int, len(drops))
		for i := range printed {
			printed[i] = map[string]int{}
		}
		labels := map[string]int{}
		var labelled, totalsLabelled int
		cpu0, _ := selfUsage()
		start := time.Now()
		for _, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".jpg")
			img, label := receipt(b, id)
			for i, d := range drops {
				e.DropScore = d
				page, err := e.Read(context.Background(), img)
				if err != nil {
					b.Fatalf("%s: %v", id, err)
				}
				text := normalise(page.Text)
				spaced := singleSpaced(page.Text)
				for _, k := range []string{"company", "date", "total"} {
					if label[k] == "" {
						continue
					}
					if i == 0 {
						labels[k]++
						labelled++
						if k == "total" {
							totalsLabelled++
						}
					}
					ok := strings.Contains(text, normalise(label[k]))
					if ok {
						found[i]++
					} else if os.Getenv("DOCENT_BENCH_VERBOSE") != "" {
						fmt.Printf("%s, DropScore %g: %s %q not found\n", id, d, k, label[k])
					}
					if k == "total" && ok {
						totals[i]++
					}
					if strings.Contains(spaced, singleSpaced(label[k])) {
						printed[i][k]++
					} else if ok && os.Getenv("DOCENT_BENCH_VERBOSE") != "" {
						fmt.Printf("%s, DropScore %g: %s %q found, not as printed\n", id, d, k, label[k])
					}
				}
			}
		}
		cpu1, rss := selfUsage()
		n := float64(len(files) * len(drops))
		cpuPer := (cpu1 - cpu0).Seconds() / n
		last := len(drops) - 1
		b.ReportMetric(float64(found[last])/float64(labelled), "found")
		b.ReportMetric(float64(printed[last]["company"]), "companies-as-printed")
		b.ReportMetric(float64(printed[last]["date"]), "dates-as-printed")
		b.ReportMetric(float64(printed[last]["total"]), "totals-as-printed")
		b.ReportMetric(cpuPer, "cpu-s/receipt")
		b.ReportMetric(float64(rss)/1e6, "peak-MB")
		for i, d := range drops {
			rule := fmt.Sprintf("lines dropped below %g", d)
			if d < 0 {
				rule = "every line kept"
			}
			// To stdout: a benchmark's log keeps only its first lines.
			fmt.Printf("SROIE, %d receipts, PP-OCRv4 mobile, longest side %d, %s: company+date+total %d/%d (%.0f %%), totals %d/%d; as printed: company %d/%d, date %d/%d, total %d/%d\n",
				len(files), MaxSide, rule, found[i], labelled, 100*float64(found[i])/float64(labelled), totals[i], totalsLabelled,
				printed[i]["company"], labels["company"], printed[i]["date"], labels["date"], printed[i]["total"], labels["total"])
		}
		b.Logf("%.2f CPU s per receipt read (%.2f s wall), peak RSS %.0f MB", cpuPer, time.Since(start).Seconds()/n, float64(rss)/1e6)
	}
}
