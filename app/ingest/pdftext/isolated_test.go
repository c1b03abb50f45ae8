package pdftext

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// minimalPDF is a valid one-page PDF with the text "Hello".
const minimalPDF = "%PDF-1.4\n" +
	"1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n" +
	"2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n" +
	"3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>> endobj\n" +
	"4 0 obj <</Length 41>> stream\nBT /F1 12 Tf 20 100 Td (Hello world) Tj ET\nendstream endobj\n" +
	"5 0 obj <</Type /Font /Subtype /Type1 /BaseFont /Helvetica>> endobj\n" +
	"trailer <</Root 1 0 R /Size 6>>\n%%EOF\n"

func TestIsolatedReadsAMinimalPDF(t *testing.T) {
	// The xref table is missing, so this also goes through repair.
	res, err := ExtractIsolated(context.Background(), []byte(minimalPDF), Options{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 1 || res.Pages[0] != "Hello world" {
		t.Errorf("pages = %q, want [\"Hello world\"]", res.Pages)
	}
	if !res.Repaired {
		t.Errorf("Repaired = false for a file without cross-reference table")
	}
}

func TestIsolatedErrorsKeepTheirKind(t *testing.T) {
	ctx := context.Background()
	_, err := ExtractIsolated(ctx, []byte("hello, not a PDF"), Options{}, Limits{})
	if !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "malformed PDF: ") {
		t.Errorf("text file: got %v, want ErrMalformed", err)
	}
	dir := testcorpus.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "qpdf/c-empty.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExtractIsolated(ctx, data, Options{}, Limits{}); !errors.Is(err, ErrNoPages) {
		t.Errorf("zero-page PDF: got %v, want ErrNoPages", err)
	}
}

// TestLoopingFilesReturnInTime reads the two files on which the pinned
// ledongthuc/pdf alone never returns (a /Prev loop in the cross-reference
// chain, a page tree that loops and nests 100 deep). They must come back
// within the limit, read or with a clear error.
func TestLoopingFilesReturnInTime(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, file := range []string{"qpdf/append-xref-loop.pdf", "qpdf/deep-pages.pdf"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := ExtractIsolated(context.Background(), data, Options{}, Limits{Timeout: 5 * time.Second})
			took := time.Since(start)
			if took > 8*time.Second {
				t.Errorf("took %v with a 5s limit", took)
			}
			switch {
			case err == nil:
				t.Logf("read %d pages in %v (repaired=%v, warnings %q)", len(res.Pages), took, res.Repaired, res.Warnings)
			case errors.Is(err, ErrTimeout), errors.Is(err, ErrMalformed), errors.Is(err, ErrNoPages):
				t.Logf("failed in %v: %v", took, err)
			default:
				t.Errorf("got %v, want a result or a timeout or malformed error", err)
			}
		})
	}
}

func TestTimeoutKillsTheChild(t *testing.T) {
	t.Setenv(faultEnv, "hang")
	start := time.Now()
	_, err := ExtractIsolated(context.Background(), []byte(minimalPDF), Options{}, Limits{Timeout: time.Second})
	if !errors.Is(err, ErrTimeout) || err.Error() != "pdf reader timed out after 1s" {
		t.Errorf("got %v, want %q", err, "pdf reader timed out after 1s")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to give up after a 1s limit", took)
	}
}

func TestCancelKillsTheChild(t *testing.T) {
	t.Setenv(faultEnv, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ExtractIsolated(ctx, []byte(minimalPDF), Options{}, Limits{})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("got %v, want the context's error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to stop after cancellation", took)
	}
}

func TestMemoryLimitIsReported(t *testing.T) {
	t.Setenv(faultEnv, "alloc")
	_, err := ExtractIsolated(context.Background(), []byte(minimalPDF), Options{}, Limits{MemoryBytes: 256 << 20, Timeout: 30 * time.Second})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if err.Error() != "pdf reader ran out of memory: it exceeded its 256 MiB memory limit" {
		t.Errorf("message %q, want %q", err.Error(), "pdf reader ran out of memory: it exceeded its 256 MiB memory limit")
	}
}

// TestThreadThatCannotStartUnderTheLimitIsOutOfMemory: under RLIMIT_AS a
// new thread's stack cannot be mapped, and the cgo runtime dies with
// "pthread_create failed: Resource temporarily unavailable" (glibc's
// EAGAIN for it) before the Go runtime can say "out of memory". CI saw
// it: the document failed as a malformed PDF.
func TestThreadThatCannotStartUnderTheLimitIsOutOfMemory(t *testing.T) {
	stderr := "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x7ff957973eec m=6 sigcode=18446744073709551610\n"
	exit := exec.Command("sh", "-c", "exit 2").Run()
	err := childDied("pdf renderer", exit, stderr, Limits{MemoryBytes: 16 << 20}, time.Second)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "out of memory") {
		t.Errorf("with a memory limit: %v; want ErrTooLarge, out of memory", err)
	}
	err = childDied("pdf renderer", exit, stderr, Limits{}, time.Second)
	if errors.Is(err, ErrTooLarge) {
		t.Errorf("without a memory limit: %v; a thread that cannot start is not the limit's doing", err)
	}
}
