package ocr

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PP-OCR as Docent runs it, for BenchmarkSROIE: each receipt photo sent
// to a PP-OCR reader child (PPOCRMemoryBytes, the models loaded once per
// child), which decodes it and reads it.
func init() {
	extraReceiptReaders = append(extraReceiptReaders, receiptReader{
		name: "PP-OCRv4 as Docent runs it (reader child, longest side ≤ 1600 px)",
		read: func(ctx context.Context, b *testing.B, id string, data []byte) (string, int64, error) {
			pp, err := findPPOCR(ctx, nil)
			if err != nil {
				return "", 0, err
			}
			rep, err := pp.Read(ctx, data, 1, 0)
			// A child that grew past 256 MB resident is retired after its
			// reply (pdftext's pool): its peak is among the ended
			// children's, with the Tesseract runs' (a bound from above).
			_, peak := liveChildren()
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
			return rep.Text, max(peak, ru.Maxrss<<10), err
		},
	})
}

// liveChildren is the CPU time used so far and the largest peak resident
// memory (VmHWM) of this process's children that still run: the reader
// children are kept between requests, and the rusage of children counts
// only those that ended.
func liveChildren() (cpu time.Duration, peak int64) {
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		// After the command's ")": state, ppid, … utime and stime are
		// the 12th and 13th fields, in clock ticks (100 a second).
		f := strings.Fields(string(raw[i+1:]))
		if len(f) < 13 || f[1] != self {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		cpu += time.Duration(ut+st) * 10 * time.Millisecond
		peak = max(peak, statusKB(filepath.Join(filepath.Dir(path), "status"), "VmHWM:"))
	}
	return cpu, peak
}

func statusKB(path, field string) int64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// PP-OCR on rendered PDF pages, for BenchmarkRenderedInvoices: each page's
// PNG sent to a PP-OCR reader child as an image file of one page.
func init() {
	extraPageReaders = append(extraPageReaders, ppocrPageReader("PP-OCRv4 at 300 dpi (reader child, longest side ≤ 1600 px)", 300))
	if os.Getenv("DOCENT_BENCH_VARIANTS") == "1" {
		extraPageReaders = append(extraPageReaders, ppocrPageReader("  PP-OCRv4 at 200 dpi", 200))
	}
}

func ppocrPageReader(name string, dpi int) pageReader {
	return pageReader{name: name, dpi: dpi, read: func(ctx context.Context, img PageImage) (string, error) {
		pp, err := findPPOCR(ctx, nil)
		if err != nil {
			return "", err
		}
		data, err := os.ReadFile(img.File)
		if err != nil {
			return "", err
		}
		rep, err := pp.Read(ctx, data, 1, 0)
		return rep.Text, err
	}}
}
